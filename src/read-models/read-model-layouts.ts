/**
 * The layouts of the read models and search this release has code for: the one it writes and,
 * during a release that changes it, the one before, kept as `previous` so a file of that layout
 * goes on answering while the new one is built beside it (docs/layout-upgrades.md, "How to bump
 * the read models' layout"). A layout is its version, its tables and the code that opens them
 * under the names the runtime gives.
 */
import type { ProjectionHandler } from '../store/projection.port.js';
import type { ReadModelDb } from './read-model-db.js';
import type { ReadModelLayout, LayoutFile } from './read-model-layout.js';
import { openReadModelLayout } from './read-model-layout.js';
import { searchHandler } from './search.projection.js';
import {
  READ_MODEL_TABLES,
  SEARCH_TABLES,
  readModelNames,
  type TableNaming,
} from './read-model.names.js';

/** The code of one layout of the read models and search. */
export interface ReadModelLayoutCode {
  readonly version: number;
  /** The read models' tables, views and indexes, by their own names (what its change drops). */
  readonly tables: readonly string[];
  /** Search's, likewise. */
  readonly searchTables: readonly string[];
  /** Creates its tables where missing under `naming` and prepares its statements. */
  open(file: LayoutFile, naming: TableNaming): ReadModelLayout;
  /** Search's handler on an opened layout of this code (its checkpoint and indexing). */
  openSearch(models: ReadModelDb, layout: ReadModelLayout): ProjectionHandler;
  /**
   * The layout before it, whose code still reads and writes a file of that layout while this
   * one is built beside it. One step back only: a file two layouts behind is rebuilt.
   */
  readonly previous?: ReadModelLayoutCode;
}

/**
 * Layout 8: items with running totals, recall uses, payload copies in a file of their own, FTS5
 * search with porter stemming (read-model.schema.ts).
 */
export const READ_MODEL_LAYOUT_8: ReadModelLayoutCode = {
  version: 8,
  tables: READ_MODEL_TABLES,
  searchTables: SEARCH_TABLES,
  open: (file, naming) => openReadModelLayout(file, readModelNames(naming)),
  openSearch: searchHandler,
};

/** The layout this release writes. */
export const READ_MODEL_LAYOUT: ReadModelLayoutCode = READ_MODEL_LAYOUT_8;

/** The layout version this release writes; a file of another is rebuilt or built beside. */
export const READ_MODEL_VERSION = String(READ_MODEL_LAYOUT.version);
