// The same import in a test file: allowed.
import { waitFor } from '@verity/testing';

export const wait = waitFor;
