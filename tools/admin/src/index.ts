export { parseArgs } from './args.js';
export { runCommand, USAGE } from './commands.js';
