/** Parsers for numeric option values: a bad value is a usage error, reported by commander. */
import { InvalidArgumentError } from 'commander';

/** An integer parser accepting `min` to `max` inclusive. */
export function integerAtLeast(
  min: number,
  max: number = Number.MAX_SAFE_INTEGER,
): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!/^\s*-?\d+\s*$/.test(value) || !Number.isSafeInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(
        max === Number.MAX_SAFE_INTEGER
          ? `must be an integer of ${min} or more.`
          : `must be an integer from ${min} to ${max}.`,
      );
    }
    return n;
  };
}
