import { baseEnv, loadConfig, postgresEnv } from './config.js';
import { servicePasswordVariable } from './database-roles.js';
import { ensureDatabase, migrateServiceSchema, type MigrationClass } from './database.js';
import { databaseUrlOf } from './service.js';

/**
 * Entry of each service's `migrate` command: creates the regional database if missing, migrates its schema as
 * the owner (`DATABASE_URL`), and gives the service's own role its rights there, with the password in
 * `DATABASE_PASSWORD_<SERVICE>` when set (docs/operations.md, "Database roles").
 */
export async function runMigrations(service: string, migrations: MigrationClass[]): Promise<void> {
  const cfg = loadConfig({ ...baseEnv, ...postgresEnv });
  const url = databaseUrlOf(cfg);
  await ensureDatabase(url);
  const ran = await migrateServiceSchema({
    url,
    schema: service.replace(/-/g, '_'),
    migrations,
    poolMax: 1,
    applicationName: `${service}-migrate`,
    rolePassword: process.env[servicePasswordVariable(service)] || undefined,
  });
  process.stdout.write(`${JSON.stringify({ service, region: cfg.REGION, migrations_applied: ran })}\n`);
}
