import { createPrivateKey } from 'node:crypto';
import { parentPort, workerData } from 'node:worker_threads';
import { signBody } from '../common/signing.ts';

/** Signs bodies the way the platform does (RSA PKCS#1 v1.5, SHA-256, base64), off the main thread. */

const { privateKeyPem, bodies } = workerData as { privateKeyPem: string; bodies: string[] };
// Parsed once: a PEM string passed to sign() would be parsed again for every body.
const key = createPrivateKey(privateKeyPem);
parentPort?.postMessage(bodies.map((body) => signBody(body, key)));
