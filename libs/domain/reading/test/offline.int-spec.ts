import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { promisify } from 'node:util';
import { catalogueSpecimen, expectedRead, renderSpecimen, selfie } from '@verity/specimens';
import { closeReaders, DEFAULT_THRESHOLDS, FaceEngine, installOfflineFetch, readDocument, startReaders, verify } from '../src/index.js';

const TODAY = '2026-11-25';

/**
 * Every way this thread could reach the network, made to fail loudly and to say so: sockets, name lookups,
 * HTTP clients. What reading loads must come from installed packages.
 */
function forbidNetwork(): string[] {
  const attempts: string[] = [];
  const refuse = (what: string) => (...args: unknown[]) => {
    attempts.push(`${what} ${JSON.stringify(args[0])}`);
    throw new Error(`network access attempted: ${what}`);
  };
  net.Socket.prototype.connect = refuse('net.connect') as never;
  dns.lookup = refuse('dns.lookup') as never;
  dns.promises.lookup = refuse('dns.promises.lookup') as never;
  http.request = refuse('http.request') as never;
  https.request = refuse('https.request') as never;
  return attempts;
}

describe('reading works offline', () => {
  it('the reader refuses any fetch but files, loudly', async () => {
    installOfflineFetch();
    await assert.rejects(fetch('https://cdn.jsdelivr.net/npm/@tesseract.js-data/eng/4.0.0/eng.traineddata.gz'), /works offline; it refused to fetch https:\/\/cdn\.jsdelivr\.net/);
  });

  it('reads a passport (its outline and printed zone too), a licence and faces with every network path of the process refused', async () => {
    const attempts = forbidNetwork();
    installOfflineFetch();
    const [readers, faces] = await Promise.all([startReaders(), FaceEngine.start()]);
    try {
      const passport = catalogueSpecimen('td3', 3, TODAY);
      const p = await renderSpecimen(passport);
      const v = await verify(readers, faces, { front: p.front, back: null, selfie: await selfie(passport.holder.person) }, DEFAULT_THRESHOLDS, TODAY);
      assert.ok(v.document.readable);
      assert.equal(v.document.read.holder.family_name, expectedRead(passport).family_name);
      // the outline was found (OpenCV) and the printed zone read (Tesseract's English model)
      assert.equal(v.document.printed?.family_name.agrees, true);
      assert.equal(v.checks.face_match?.outcome, 'pass');
      const licence = catalogueSpecimen('aamva', 3, TODAY);
      const l = await renderSpecimen(licence);
      const { outcome } = await readDocument(readers, { front: l.front, back: l.back }, TODAY);
      assert.ok(outcome.readable && outcome.source === 'pdf417');
    } finally {
      await closeReaders(readers);
    }
    assert.deepEqual(attempts, []);
  });

  it('the reading pool, its threads and their engines work in a network namespace with no network at all', async () => {
    // unshare -n: a new network namespace with no interface up; any connection or lookup fails outright
    const script = `
      import { ReadingPool } from ${JSON.stringify(new URL('../src/index.js', import.meta.url).href)};
      import { catalogueSpecimen, renderSpecimen, selfie } from '@verity/specimens';
      const pool = new ReadingPool({ threads: 1, faces: true });
      await pool.warm();
      const s = catalogueSpecimen('td1', 3, '${TODAY}');
      const r = await renderSpecimen(s);
      const v = await pool.verify({ front: r.front, back: r.back, selfie: await selfie(s.holder.person) }, undefined, '${TODAY}');
      await pool.close();
      console.log(JSON.stringify({ read: v.document.readable && v.document.read.holder.family_name, document: v.checks.document.outcome, faceMatch: v.checks.face_match.outcome, portrait: v.portrait.length > 0 }));
    `;
    const { stdout } = await promisify(execFile)('unshare', ['-n', process.execPath, '--input-type=module', '-e', script], { cwd: new URL('.', import.meta.url), timeout: 120_000 });
    const expected = expectedRead(catalogueSpecimen('td1', 3, TODAY));
    assert.deepEqual(JSON.parse(stdout.trim().split('\n').pop()!), { read: expected.family_name, document: 'pass', faceMatch: 'pass', portrait: true });
  });
});
