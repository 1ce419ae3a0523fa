import { Query } from '@nestjs/cqrs';

/** Ids of the memories that hold at least one event. */
export class ListMemoriesQuery extends Query<string[]> {}
