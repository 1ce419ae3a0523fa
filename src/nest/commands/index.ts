import { AddDocumentHandler } from './add-document.handler.js';
import { DeleteContentHandler } from './delete-content.handler.js';
import { EraseContentHandler } from './erase-content.handler.js';
import { RecallHandler } from './recall.handler.js';
import { RecordMessageHandler } from './record-message.handler.js';
import { RecordRecallHandler } from './record-recall.handler.js';

export { AddDocumentCommand } from './add-document.command.js';
export {
  DeleteContentCommand,
  type DeleteContentOptions,
  type DeleteContentResult,
} from './delete-content.command.js';
export { EraseContentCommand } from './erase-content.command.js';
export { RecallCommand, type RecallCommandRequest } from './recall.command.js';
export { RecordMessageCommand } from './record-message.command.js';
export { RecordRecallCommand } from './record-recall.command.js';
export {
  AddDocumentHandler,
  DeleteContentHandler,
  EraseContentHandler,
  RecallHandler,
  RecordMessageHandler,
  RecordRecallHandler,
};

/** Every command handler of the memory module. */
export const MEMORY_COMMAND_HANDLERS = [
  RecordMessageHandler,
  AddDocumentHandler,
  RecordRecallHandler,
  DeleteContentHandler,
  EraseContentHandler,
  RecallHandler,
];
