/**
 * Preloaded with `node --require` into the offline test's child process. Node runs --require
 * preloads in every worker thread too (unlike --import), so tesseract.js's worker threads get it
 * as well. Every way out to the network throws, and each attempt is appended to NO_NETWORK_LOG.
 */
const fs = require('node:fs');
const { threadId } = require('node:worker_threads');

const logFile = process.env.NO_NETWORK_LOG;
if (!logFile) throw new Error('NO_NETWORK_LOG is not set');

function describe(target) {
  if (typeof target === 'string') return target;
  if (target instanceof URL) return target.href;
  if (target && typeof target === 'object') return target.href || target.url || `${target.host || target.hostname || ''}:${target.port || ''}`;
  return String(target);
}

function record(what, target) {
  const line = JSON.stringify({ threadId, what, target: describe(target) });
  fs.appendFileSync(logFile, `${line}\n`);
  return new Error(`network access is blocked in this test: ${what} ${describe(target)}`);
}

function blocked(what) {
  return function blockedCall(target) {
    throw record(what, target);
  };
}

globalThis.fetch = async function blockedFetch(target) {
  throw record('fetch', target);
};
for (const name of ['http', 'https']) {
  const mod = require(`node:${name}`);
  mod.request = blocked(`${name}.request`);
  mod.get = blocked(`${name}.get`);
}
const net = require('node:net');
net.connect = blocked('net.connect');
net.createConnection = blocked('net.createConnection');
net.Socket.prototype.connect = blocked('net.Socket.connect');
require('node:tls').connect = blocked('tls.connect');
const dns = require('node:dns');
dns.lookup = blocked('dns.lookup');
dns.promises.lookup = async (host) => {
  throw record('dns.promises.lookup', host);
};
