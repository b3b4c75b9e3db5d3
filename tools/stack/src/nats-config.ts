/**
 * `npm run nats-config`: writes the shipped nats-server configuration of each region
 * (deploy/overlays/<region>/nats-server.conf) from NATS_GRANTS. Run it after changing the table; the
 * integration test of the permissions fails while a shipped file differs from what this writes.
 */
import { writeDeployNatsConfigs } from './nats.js';
import { REPO_ROOT } from './stack.js';

for (const file of writeDeployNatsConfigs(REPO_ROOT)) process.stdout.write(`wrote ${file}\n`);
