// The browser tests drive Debian's Chromium (never a downloaded browser). This makes
// `npm test` do its own set-up on a fresh Debian machine: when /usr/bin/chromium is missing and
// we are root with apt-get, install it; otherwise say why the browser tests will be skipped.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const CHROMIUM = '/usr/bin/chromium';
if (!existsSync(CHROMIUM)) {
  const canInstall = process.getuid?.() === 0 && existsSync('/usr/bin/apt-get');
  if (canInstall) {
    console.error(
      'memledger tests: installing Debian chromium for the browser tests (apt-get) ...',
    );
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
    execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'chromium'], {
      stdio: 'inherit',
      env,
    });
  } else {
    console.error(
      `memledger tests: ${CHROMIUM} is missing and cannot be installed here (needs root + apt-get); the browser tests will be skipped.`,
    );
  }
}
