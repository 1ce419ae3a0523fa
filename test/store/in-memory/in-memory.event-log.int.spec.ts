import { openInMemoryStore } from '../../../src/store/in-memory/in-memory.event-log.js';
import { describeEventLogContract } from '../../store-contract/index.js';

describeEventLogContract('in-memory', { open: async () => openInMemoryStore() });
