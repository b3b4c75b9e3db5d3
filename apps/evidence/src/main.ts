import { runService } from '@verity/platform';
import { EvidenceModule } from './app.module.js';
import { EVIDENCE_SERVICE } from './config.js';

await runService(EVIDENCE_SERVICE, EvidenceModule);
