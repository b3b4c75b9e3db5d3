/**
 * Names of the services' database roles (docs/operations.md, "Database roles"), apart from the database code so
 * that the tools that start stacks can name them without loading it.
 */

/** The database role a service connects as: `verity_<schema>` (`verity_webhook_delivery`). */
export function serviceRole(schema: string): string {
  return `verity_${schema}`;
}

/** The variable of a service's database password for its migrate step: `DATABASE_PASSWORD_WEBHOOK_DELIVERY`. */
export function servicePasswordVariable(service: string): string {
  return `DATABASE_PASSWORD_${service.toUpperCase().replace(/-/g, '_')}`;
}
