/**
 * Runs the built CLI with stderr on a pseudo-terminal and stdout still a pipe, the one arrangement in which crater
 * draws a progress line. Node has no pty API, so a few lines of Python's `pty` module open one (80x24: a pty of
 * unknown width gets no spinner), run the CLI on it, copy what the terminal side shows to Python's stderr and
 * forward SIGINT/SIGTERM to the CLI. stdin and stdout are the child's own pipes, passed through untouched.
 */
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { type CliOptions, type CliRun, childEnv, repoRoot } from './cli.js';

const RELAY = `
import fcntl, os, pty, signal, struct, subprocess, sys, termios
master, slave = pty.openpty()
fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack('HHHH', 24, 80, 0, 0))
child = subprocess.Popen(sys.argv[1:], stderr=slave)
os.close(slave)
for sig in (signal.SIGINT, signal.SIGTERM):
    signal.signal(sig, lambda s, _f: child.send_signal(s))
while True:
    try:
        data = os.read(master, 4096)
    except InterruptedError:
        continue
    except OSError:
        break
    if not data:
        break
    sys.stderr.buffer.write(data)
    sys.stderr.buffer.flush()
code = child.wait()
sys.exit(code if code >= 0 else 128 - code)
`;

/** True when python3 with its pty module is there to run `spawnCraterOnPty`. */
export function ptyAvailable(): boolean {
  if (process.platform === 'win32') return false;
  return spawnSync('python3', ['-c', 'import pty, termios, fcntl'], { stdio: 'ignore' }).status === 0;
}

export interface PtyRun extends CliRun {
  /** What has arrived so far: stdout's pipe, and the terminal side without escape sequences. */
  seen(): { stdout: string; terminal: string };
}

/**
 * `crater ARGS` with stderr on a pty: `stderr` of the result is what the terminal showed (escape sequences removed),
 * `stdout` is the pipe. Signals sent to `child` reach the CLI.
 */
export function spawnCraterOnPty(args: string[], options: CliOptions = {}): PtyRun {
  const env = childEnv({ ...options, env: { TERM: 'xterm', ...options.env } });
  const child = spawn('python3', ['-c', RELAY, process.execPath, path.join(repoRoot, 'bin/run.js'), ...args], {
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let terminal = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (terminal += d));
  return {
    child,
    seen: () => ({ stdout, terminal: plainText(terminal) }),
    done: new Promise((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr: plainText(terminal) }));
    }),
  };
}

/** Terminal output without its escape sequences (colour, cursor moves, line clears). */
export function plainText(text: string): string {
  return text.replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;?]*[A-Za-z]`, 'g'), '');
}
