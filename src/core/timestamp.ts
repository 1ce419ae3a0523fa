/**
 * Timestamps: accepted with any UTC offset (or as a `Date`), stored as canonical UTC ISO-8601
 * with `Z`. Canonical matters: idempotent appends (invariant 9) compare events by content, so the
 * same instant must always normalize to the same string. Milliseconds are always written;
 * microseconds only when the input carried a non-zero sub-millisecond part.
 */

const ISO_WITH_OFFSET =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(Z|z|[+-]\d{2}:?\d{2})$/;

/** Why a timestamp string was rejected, or the canonical string. */
export type TimestampResult = { ok: true; value: string } | { ok: false; reason: string };

const pad = (n: number, width: number): string => String(n).padStart(width, '0');

/** Normalizes a timestamp string with an explicit offset to canonical UTC. */
export function normalizeTimestamp(input: string): TimestampResult {
  const m = ISO_WITH_OFFSET.exec(input.trim());
  if (!m) {
    return /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}([.,]\d+)?)?$/.test(input.trim())
      ? { ok: false, reason: 'must carry a UTC offset (Z or ±hh:mm); a local time is ambiguous' }
      : { ok: false, reason: 'must be an ISO-8601 date-time with a UTC offset' };
  }
  const [, y, mo, d, h, mi, s = '00', fraction = '', offset = 'Z'] = m;
  const fields = [y, mo, d, h, mi, s].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const [year, month, day, hour, minute, second] = fields;
  // setUTCFullYear, not Date.UTC: Date.UTC maps the years 0-99 to 1900-1999.
  const check = new Date(0);
  check.setUTCFullYear(year, month - 1, day);
  check.setUTCHours(hour, minute, second, 0);
  const wholeSeconds = check.getTime();
  if (
    Number.isNaN(wholeSeconds) ||
    check.getUTCMonth() !== month - 1 ||
    check.getUTCDate() !== day ||
    hour > 23 ||
    minute > 59 ||
    second > 59
  ) {
    return { ok: false, reason: 'is not a real calendar date and time' };
  }
  let offsetMinutes = 0;
  if (offset.toUpperCase() !== 'Z') {
    const sign = offset.startsWith('-') ? -1 : 1;
    const digits = offset.slice(1).replace(':', '');
    const oh = Number(digits.slice(0, 2));
    const om = Number(digits.slice(2, 4));
    if (oh > 23 || om > 59) return { ok: false, reason: 'has an invalid UTC offset' };
    offsetMinutes = sign * (oh * 60 + om);
  }
  const utc = new Date(wholeSeconds - offsetMinutes * 60_000);
  if (utc.getUTCFullYear() < 0 || utc.getUTCFullYear() > 9999) {
    return { ok: false, reason: 'is outside the years 0000-9999' };
  }
  // Keep up to microseconds; finer digits are below what any store here can order by.
  const micros = Number(fraction.slice(0, 6).padEnd(6, '0'));
  const head = utc.toISOString().slice(0, 19);
  const tail = micros % 1000 === 0 ? `.${pad(micros / 1000, 3)}` : `.${pad(micros, 6)}`;
  return { ok: true, value: `${head}${tail}Z` };
}

/** Canonical UTC form of a `Date` (millisecond precision, as `Date` holds). */
export function timestampFromDate(date: Date): TimestampResult {
  if (Number.isNaN(date.getTime())) return { ok: false, reason: 'is an invalid Date' };
  return { ok: true, value: date.toISOString() };
}
