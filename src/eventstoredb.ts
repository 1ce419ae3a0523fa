/** `memledger/eventstoredb`: the EventStoreDB / KurrentDB store (`@eventstore/db-client`). */
export {
  openEventStoreDbStore,
  type EventStoreDbStoreExtra,
  type EventStoreDbStoreOptions,
} from './store/eventstoredb/eventstoredb.event-log.js';
