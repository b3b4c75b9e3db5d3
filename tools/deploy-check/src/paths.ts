import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root (this file is tools/deploy-check/dist/src/paths.js). */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
