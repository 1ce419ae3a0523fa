/**
 * The names of the read models' and search's tables in one layout. The projection runtime gives
 * each layout its names (`ProjectionContext.table`: the tables' own names, or with a suffix for a
 * layout built beside the serving one), and every statement of that layout is prepared on them
 * once, when the layout opens: an append never resolves a name.
 */
import { MemoryError } from '../core/index.js';

/**
 * The read models' tables, views and indexes (what their layout change drops), views first.
 * `rm_meta` held the layout version before the runtime recorded it; a layout-8 file still has it.
 */
export const READ_MODEL_TABLES = [
  'rm_item_totals',
  'rm_items_content',
  'rm_items_deleted',
  'rm_items_erased',
  'rm_items_by_id',
  'rm_items',
  'rm_recall_uses',
  'rm_payloads',
  'rm_memories',
  'rm_meta',
] as const;

/** Search's tables: the vocabulary view before the index it reads. */
export const SEARCH_TABLES = ['search_vocab', 'search_fts'] as const;

type TableKey = (typeof READ_MODEL_TABLES)[number] | (typeof SEARCH_TABLES)[number];

/** Every table name of one layout, by its own name. */
export type ReadModelNames = Readonly<Record<TableKey, string>>;

/** How a layout names a table (the runtime's `ProjectionContext.table`). */
export type TableNaming = (table: string) => string;

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The names of one layout's tables under `naming` (the tables' own names without it). Names are
 * plain identifiers, so statements use them unquoted.
 */
export function readModelNames(naming: TableNaming = (table) => table): ReadModelNames {
  const names = {} as Record<TableKey, string>;
  for (const table of [...READ_MODEL_TABLES, ...SEARCH_TABLES]) {
    const name = naming(table);
    if (!IDENTIFIER.test(name))
      throw new MemoryError(
        'VALIDATION_FAILED',
        `Read-model table ${table} was given the name ${JSON.stringify(name)}, which is not a plain SQL identifier.`,
        { details: { field: 'table', table } },
      );
    names[table] = name;
  }
  return names;
}
