import { ConsoleRequireTwoFactor1765200000000 } from './migrations/1765200000000-ConsoleRequireTwoFactor.js';
import { ConsoleTwoFactor1765100000000 } from './migrations/1765100000000-ConsoleTwoFactor.js';
import { ConsoleUserDisabled1764900000000 } from './migrations/1764900000000-ConsoleUserDisabled.js';
import { ConsoleInvitations1764800000000 } from './migrations/1764800000000-ConsoleInvitations.js';
import { ConsoleSessionEpoch1764700000000 } from './migrations/1764700000000-ConsoleSessionEpoch.js';
import { ConsoleUsers1764500000000 } from './migrations/1764500000000-ConsoleUsers.js';
import { Init1763780000000 } from './migrations/1763780000000-Init.js';
import { WalletDebits1764100000000 } from './migrations/1764100000000-WalletDebits.js';

export const ACCOUNTS_MIGRATIONS = [Init1763780000000, WalletDebits1764100000000, ConsoleUsers1764500000000, ConsoleSessionEpoch1764700000000, ConsoleInvitations1764800000000, ConsoleUserDisabled1764900000000, ConsoleTwoFactor1765100000000, ConsoleRequireTwoFactor1765200000000];
