import {
  createMessage,
  isMemoryError,
  normalizeTimestamp,
  Timestamp,
} from '../../src/core/index.js';

/** Given an input, when it is normalized, then it is accepted with this canonical value. */
const canonical = (input: string): string => {
  const result = normalizeTimestamp(input);
  if (!result.ok) throw new Error(`expected ${input} to be accepted, got: ${result.reason}`);
  return result.value;
};

/** Given an input, when it is normalized, then it is rejected with this reason. */
const rejection = (input: string): string => {
  const result = normalizeTimestamp(input);
  if (result.ok) throw new Error(`expected ${input} to be rejected, got ${result.value}`);
  return result.reason;
};

describe('timestamp normalization', () => {
  describe('offsets', () => {
    it.each([
      ['2026-03-01T10:00:00+02:00', '2026-03-01T08:00:00.000Z'],
      ['2026-03-01T10:00:00-05:30', '2026-03-01T15:30:00.000Z'],
      ['2026-03-01T10:00:00+0200', '2026-03-01T08:00:00.000Z'],
      ['2026-03-01T10:00:00Z', '2026-03-01T10:00:00.000Z'],
      ['2026-03-01T10:00:00z', '2026-03-01T10:00:00.000Z'],
      ['2026-03-01T10:00:00-00:00', '2026-03-01T10:00:00.000Z'],
      ['2026-03-01T01:00:00+02:00', '2026-02-28T23:00:00.000Z'],
      ['2025-12-31T23:30:00-01:00', '2026-01-01T00:30:00.000Z'],
    ])('normalizes %s to UTC Z as %s', (input, expected) => {
      expect(canonical(input)).toBe(expected);
    });

    it('gives the same canonical string for equal instants written with different offsets', () => {
      // given three spellings of one instant
      const spellings = [
        '2026-03-01T08:00:00.250Z',
        '2026-03-01T10:00:00.25+02:00',
        '2026-03-01T03:00:00.250000-05:00',
      ];
      // when each is normalized
      const values = spellings.map(canonical);
      // then they are the same string
      expect(new Set(values)).toEqual(new Set(['2026-03-01T08:00:00.250Z']));
    });

    it('gives different canonical strings for different instants', () => {
      expect(canonical('2026-03-01T10:00:00+02:00')).not.toBe(canonical('2026-03-01T10:00:00Z'));
    });

    it('rejects an offset of 24 hours or more', () => {
      expect(rejection('2026-03-01T10:00:00+24:00')).toBe('has an invalid UTC offset');
    });

    it('rejects an offset with 60 minutes or more', () => {
      expect(rejection('2026-03-01T10:00:00+02:60')).toBe('has an invalid UTC offset');
    });
  });

  describe('fractional seconds', () => {
    it.each([
      ['2026-03-01T10:00:00.123456Z', '2026-03-01T10:00:00.123456Z'],
      ['2026-03-01T10:00:00.000001Z', '2026-03-01T10:00:00.000001Z'],
      ['2026-03-01T10:00:00.5Z', '2026-03-01T10:00:00.500Z'],
      ['2026-03-01T10:00:00.12Z', '2026-03-01T10:00:00.120Z'],
      ['2026-03-01T10:00:00.123000Z', '2026-03-01T10:00:00.123Z'],
      ['2026-03-01T10:00:00.000000Z', '2026-03-01T10:00:00.000Z'],
      ['2026-03-01T10:00:00.1234Z', '2026-03-01T10:00:00.123400Z'],
      ['2026-03-01T10:00:00,5Z', '2026-03-01T10:00:00.500Z'],
    ])('keeps the fraction of %s as %s', (input, expected) => {
      expect(canonical(input)).toBe(expected);
    });

    it('keeps microseconds and drops digits finer than a microsecond', () => {
      expect(canonical('2026-03-01T10:00:00.1234567Z')).toBe('2026-03-01T10:00:00.123456Z');
    });

    it('keeps microseconds through an offset conversion', () => {
      expect(canonical('2026-03-01T10:00:00.000250+01:00')).toBe('2026-03-01T09:00:00.000250Z');
    });

    it('writes milliseconds when the input has no fraction', () => {
      expect(canonical('2026-03-01T10:00:00Z')).toMatch(/\.000Z$/);
    });
  });

  describe('rejected inputs', () => {
    it('rejects a time without offset with a reason saying it needs a UTC offset', () => {
      // given a local time, when normalized, then the reason asks for an offset
      const reason = rejection('2026-03-01T10:00:00');
      expect(reason).toMatch(/must carry a UTC offset/);
    });

    it('rejects a local time with a fraction with the same offset reason', () => {
      expect(rejection('2026-03-01T10:00:00.123')).toMatch(/must carry a UTC offset/);
    });

    it.each([
      ['February 30', '2026-02-30T10:00:00Z'],
      ['February 29 of a common year', '2026-02-29T10:00:00Z'],
      ['April 31', '2026-04-31T10:00:00Z'],
      ['month 13', '2026-13-01T10:00:00Z'],
      ['day 0', '2026-03-00T10:00:00Z'],
      ['hour 25', '2026-03-01T25:00:00Z'],
      ['hour 24', '2026-03-01T24:00:00Z'],
      ['minute 60', '2026-03-01T10:60:00Z'],
      ['second 60', '2026-03-01T10:00:60Z'],
    ])('rejects an impossible date or time (%s)', (_what, input) => {
      expect(rejection(input)).toBe('is not a real calendar date and time');
    });

    it('accepts February 29 of a leap year', () => {
      expect(canonical('2024-02-29T12:00:00Z')).toBe('2024-02-29T12:00:00.000Z');
    });

    it('accepts a time without seconds, as ISO-8601 allows', () => {
      expect(canonical('2026-03-01T10:00Z')).toBe('2026-03-01T10:00:00.000Z');
    });

    it.each(['', 'yesterday', '2026-03-01', '1772359200000'])(
      'rejects %j as not an ISO-8601 date-time with an offset',
      (input) => {
        expect(rejection(input)).toBe('must be an ISO-8601 date-time with a UTC offset');
      },
    );

    it('rejects an instant that an offset pushes past the year 9999', () => {
      expect(rejection('9999-12-31T23:00:00-02:00')).toBe('is outside the years 0000-9999');
    });
  });

  describe('the Timestamp schema', () => {
    it('accepts a Date and writes it as canonical UTC with milliseconds', () => {
      const date = new Date(Date.UTC(2026, 2, 1, 8, 0, 0, 7));
      expect(Timestamp.parse(date)).toBe('2026-03-01T08:00:00.007Z');
    });

    it('gives a Date and the equal instant as a string the same canonical value', () => {
      const fromDate = Timestamp.parse(new Date(Date.UTC(2026, 2, 1, 8, 0, 0, 500)));
      expect(Timestamp.parse('2026-03-01T10:00:00.5+02:00')).toBe(fromDate);
    });

    it('rejects an invalid Date', () => {
      const result = Timestamp.safeParse(new Date(Number.NaN));
      expect(result.success).toBe(false);
    });

    it('rejects a value that is neither a string nor a Date', () => {
      expect(Timestamp.safeParse(1772359200000).success).toBe(false);
    });

    it('makes a factory reject a local time with VALIDATION_FAILED naming the timestamp field', () => {
      // given a message whose timestamp has no offset
      let caught: unknown;
      try {
        // when it is created
        createMessage({ speaker: 'user', content: 'hi', timestamp: '2026-03-01T10:00:00' });
      } catch (error) {
        caught = error;
      }
      // then the error names the field and the missing offset
      expect(isMemoryError(caught, 'VALIDATION_FAILED')).toBe(true);
      expect((caught as Error).message).toContain('timestamp: must carry a UTC offset');
    });

    it('makes a factory store the normalized UTC timestamp of an offset input', () => {
      const event = createMessage({
        speaker: 'user',
        content: 'hi',
        timestamp: '2026-03-01T10:00:00.123456+02:00',
      });
      expect(event.timestamp).toBe('2026-03-01T08:00:00.123456Z');
    });
  });
});
