// Prints one line `jest: N passed, N failed, N skipped` from jest's JSON results, so a CI run
// that executed no test is visible. Exits non-zero when the results are missing or empty.
import { existsSync, readFileSync } from 'node:fs';

const file = process.argv[2] ?? 'jest-results.json';
if (!existsSync(file)) {
  console.log('jest: 0 passed, 0 failed (no results: jest did not run)');
  process.exit(1);
}
const results = JSON.parse(readFileSync(file, 'utf8'));
console.log(
  `jest: ${results.numPassedTests} passed, ${results.numFailedTests} failed, ${results.numPendingTests} skipped`,
);
process.exit(results.numTotalTests > 0 && results.success ? 0 : 1);
