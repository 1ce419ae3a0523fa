import { Query } from '@nestjs/cqrs';

/**
 * The log's verifier key line (`<name>+<key id>+<base64 key>`) that checkpoints verify under;
 * `LOG_KEY_NOT_CONFIGURED` when the log is unsigned.
 */
export class GetLogKeyQuery extends Query<string> {}
