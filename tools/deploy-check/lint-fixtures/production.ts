// Production code of tools/deploy-check importing the test library: the module-boundary rule must refuse it.
import { waitFor } from '@verity/testing';

export const wait = waitFor;
