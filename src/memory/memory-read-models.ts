import type { EventLog } from '../store/event-log.port.js';
import {
  ItemIndexProjection,
  MemoryStateProjection,
  ProjectionRunner,
  SearchProjection,
  type ProjectionRunnerOptions,
} from '../projections/index.js';

/** The read models of one memory and the runner that feeds them. */
export interface MemoryReadModels {
  readonly state: MemoryStateProjection;
  readonly search: SearchProjection;
  readonly items: ItemIndexProjection;
  readonly runner: ProjectionRunner;
}

/** Creates and starts the read models of one memory (restoring a verified snapshot first). */
export async function startReadModels(
  log: EventLog,
  options: ProjectionRunnerOptions,
): Promise<MemoryReadModels> {
  const state = new MemoryStateProjection();
  const search = new SearchProjection();
  const items = new ItemIndexProjection();
  const runner = new ProjectionRunner(log, [state, search, items], options);
  await runner.start();
  return { state, search, items, runner };
}
