/**
 * Which layout of a projection serves when its file opens, and which is built beside it. A
 * file holding the layout this code writes serves it. A file holding the layout of the
 * projection's `previous` goes on serving that one (its code is kept for it) while this code's
 * layout is built beside it under suffixed table names (layout-builder.ts), so a layout change
 * never stops queries. A file holding any other layout has no code left that reads it: its
 * tables are dropped and rebuilt before the projection serves, and the log says so.
 */
import type Database from 'better-sqlite3';
import { MemoryError } from '../core/index.js';
import type { Projection, ProjectionContext } from '../store/projection.port.js';
import { dropObject, type Registered } from './projection-steps.js';
import {
  layoutOf,
  tablesOf,
  type Layout,
  type ProjectionLayouts,
  type ProjectionVersions,
} from './projection-tables.js';

/** The suffix the tables of a layout built beside another carry. */
export function besideSuffix(version: number): string {
  return `__v${version}`;
}

/** A layout being built beside the serving one. */
export interface LayoutBuild extends Registered {
  /** The serving layout's version. */
  readonly from: number;
  readonly suffix: string;
  /** Events applied and events to apply, over every memory, as last counted. */
  applied: number;
  total: number;
}

/** How a projection's layouts stand in a file that is open. */
export interface OpenedLayouts {
  readonly serving: Registered;
  /** The layout built beside the serving one, if any. */
  readonly build?: LayoutBuild;
  /** The version of a layout no code reads any longer, dropped to rebuild (none: undefined). */
  readonly dropped?: number;
}

/** The file's layout bookkeeping, and a context per table suffix. */
export interface LayoutFile {
  readonly db: Database.Database;
  readonly versions: ProjectionVersions;
  readonly layouts: ProjectionLayouts;
  context(suffix: string): ProjectionContext;
}

type Plan =
  | { readonly kind: 'current'; readonly stale?: Layout }
  | { readonly kind: 'beside'; readonly fresh: boolean; readonly stale?: Layout }
  | { readonly kind: 'rebuild'; readonly recorded: number | undefined };

/**
 * Opens `projection`'s layouts in `file`: the one that serves and the one built beside it.
 * Writes only when the layouts change (another process may hold the file's write lock).
 */
export function openLayouts(file: LayoutFile, projection: Projection): OpenedLayouts {
  const { db, layouts } = file;
  const { name, version, previous } = projection;
  if (previous && (previous.name !== name || !(previous.version < version)))
    throw new MemoryError(
      'VALIDATION_FAILED',
      `Projection ${name} version ${version}: its previous must be projection ${name} of a lower version, not ${previous.name} version ${previous.version}.`,
      { details: { field: 'previous', name, version } },
    );
  let plan = planFor(file, projection);
  if (needsWrite(plan))
    db.transaction(() => {
      plan = planFor(file, projection); // another process may have done it meanwhile
      if (needsWrite(plan)) writeLayouts(file, projection, plan);
    }).immediate();
  const open = (layout: Projection, suffix: string): Registered => ({
    projection: layout,
    handler: layout.open(file.context(suffix)),
  });
  const servingSuffix = layouts.servingSuffix(name);
  if (plan.kind !== 'beside') {
    const dropped = plan.kind === 'rebuild' ? plan.recorded : undefined;
    return {
      serving: open(projection, servingSuffix),
      ...(dropped === undefined ? {} : { dropped }),
    };
  }
  const suffix = besideSuffix(version);
  const build = {
    ...open(projection, suffix),
    from: previous!.version,
    suffix,
    applied: 0,
    total: 0,
  };
  return { serving: open(previous!, servingSuffix), build };
}

function planFor(file: LayoutFile, projection: Projection): Plan {
  const { versions, layouts } = file;
  const { name, version, previous } = projection;
  const recorded = versions.recorded(name);
  const building = layouts.get(name, 'building');
  if (recorded === version)
    return building === undefined ? { kind: 'current' } : { kind: 'current', stale: building };
  if (recorded !== undefined && recorded === previous?.version) {
    if (building?.version === version) return { kind: 'beside', fresh: false };
    return { kind: 'beside', fresh: true, ...(building ? { stale: building } : {}) };
  }
  return { kind: 'rebuild', recorded };
}

function needsWrite(plan: Plan): boolean {
  if (plan.kind === 'current') return plan.stale !== undefined;
  return plan.kind === 'beside' ? plan.fresh : true;
}

/** Carries out `plan` (inside the caller's transaction). */
function writeLayouts(file: LayoutFile, projection: Projection, plan: Plan): void {
  const { db, versions, layouts } = file;
  const { name, version } = projection;
  const drop = (layout: Layout | undefined) => {
    for (const table of layout?.tables ?? []) dropObject(db, table);
  };
  if (plan.kind !== 'rebuild') {
    drop(plan.stale);
    const building =
      plan.kind === 'beside' ? layoutOf(projection, besideSuffix(version)) : undefined;
    layouts.set(name, 'building', building);
    return;
  }
  // No code reads the serving layout any longer: its tables go, as recorded, and whatever holds
  // the names this layout is about to create; a build beside it goes with them.
  drop(layouts.get(name, 'building'));
  for (const table of tablesOf(layouts.get(name, 'serving'), projection, '')) dropObject(db, table);
  layouts.set(name, 'building', undefined);
  layouts.set(name, 'serving', layoutOf(projection, ''));
  versions.record(name, version);
}
