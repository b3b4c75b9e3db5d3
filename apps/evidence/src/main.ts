import { runService } from '@verity/platform';
import { EvidenceModule } from './app.module.js';
import { EVIDENCE_SERVICE, evidenceEnv } from './definition.js';

await runService(EVIDENCE_SERVICE, EvidenceModule, evidenceEnv);
