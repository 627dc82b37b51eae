// Starts real redis-server processes on free loopback ports, and stops every one of them.
//
//   const servers = await startServers(5);   // { urls, ports, stop() }
//   ...
//   await servers.stop();
//
// Each server listens on 127.0.0.1 only, with no persistence (--save '' --appendonly no),
// so it leaves no file behind. Every wait is bounded. A process that exits for any reason
// (an error included) kills the servers it started: the 'exit' hook below is synchronous.

import { spawn } from 'node:child_process';
import net from 'node:net';

const START_TIMEOUT_MS = 5000;
const STOP_TIMEOUT_MS = 2000;

/** Every server this process started and has not seen exit. */
const running = new Set();

process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => process.exit(130));
}

/** A port the kernel says is free right now (another process may take it; see startOne). */
function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** Resolves when a RESP PING on port answers +PONG; rejects on any error. */
function ping(port) {
  return new Promise((resolve, reject) => {
    const sock = net.connect({ host: '127.0.0.1', port });
    let got = '';
    sock.setTimeout(500, () => sock.destroy(new Error('PING timed out')));
    sock.on('connect', () => sock.write('PING\r\n'));
    sock.on('data', (d) => {
      got += d;
      if (got.includes('\r\n')) {
        sock.end();
        if (got.startsWith('+PONG')) resolve();
        else reject(new Error(`PING answered ${JSON.stringify(got)}`));
      }
    });
    sock.on('error', reject);
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Kills one server and waits (bounded) until it has exited. */
async function stopOne(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const done = await Promise.race([exited.then(() => true), sleep(STOP_TIMEOUT_MS).then(() => false)]);
  if (!done) {
    child.kill('SIGKILL');
    await Promise.race([exited, sleep(STOP_TIMEOUT_MS)]);
  }
}

/** Starts one redis-server and waits until it answers PING. */
async function startOne() {
  const port = await freePort();
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  running.add(child);
  let output = '';
  child.stdout.on('data', (d) => { output = (output + d).slice(-2000); });
  child.stderr.on('data', (d) => { output = (output + d).slice(-2000); });
  let spawnError = null;
  child.on('error', (e) => { spawnError = e; });
  child.on('exit', () => running.delete(child));

  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (spawnError) throw new Error(`cannot start redis-server: ${spawnError.message}`);
    if (child.exitCode !== null) {
      throw new Error(`redis-server on port ${port} exited (${child.exitCode}): ${output.trim()}`);
    }
    try {
      await ping(port);
      return { port, url: `redis://127.0.0.1:${port}`, child };
    } catch {
      if (Date.now() > deadline) {
        await stopOne(child);
        throw new Error(`redis-server on port ${port} did not answer PING within ${START_TIMEOUT_MS} ms: ${output.trim()}`);
      }
      await sleep(25);
    }
  }
}

/**
 * Starts n servers. If one fails (a port taken between freePort and bind, say), it is
 * tried again on another port, twice at most; on a final failure every server started
 * here is stopped before the error is thrown.
 */
export async function startServers(n) {
  const started = [];
  const stop = () => Promise.all(started.map((s) => stopOne(s.child)));
  try {
    for (let i = 0; i < n; i++) {
      for (let attempt = 1; ; attempt++) {
        try {
          started.push(await startOne());
          break;
        } catch (e) {
          if (attempt >= 3) throw e;
        }
      }
    }
  } catch (e) {
    await stop();
    throw e;
  }
  return { urls: started.map((s) => s.url), ports: started.map((s) => s.port), stop };
}

/**
 * Runs one part of the suite on its own (`node labs.mjs`): `n` servers, one line per
 * check, the exit code 1 if any failed; every server stopped however it ends.
 */
export async function runAlone(n, part) {
  const servers = await startServers(n);
  let failed = 0;
  try {
    await part(servers, (name, ok, detail) => {
      if (!ok) failed++;
      console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}${detail ? ` — ${detail}` : ''}`);
    });
  } finally {
    await servers.stop();
  }
  process.exit(failed ? 1 : 0);
}
