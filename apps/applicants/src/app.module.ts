import { Module } from '@nestjs/common';
import { CONFIG } from '@verity/platform';
import { ApplicantsRpcController } from './applicants.rpc.controller.js';
import { ApplicantsRepository } from './applicants/applicants.repository.js';
import { ApplicantsService } from './applicants/applicants.service.js';
import type { ApplicantsConfig } from './config.js';
import { DsarRepository } from './privacy/dsar.repository.js';
import { DsarJob } from './privacy/dsar.job.js';
import { DsarService } from './privacy/dsar.service.js';
import { ErasureKeys } from './privacy/erasure-keys.js';
import { ERASURE_KEYS } from './privacy/tokens.js';

@Module({
  providers: [
    {
      provide: ERASURE_KEYS,
      inject: [CONFIG],
      useFactory: (cfg: ApplicantsConfig) => ErasureKeys.load(cfg.ERASURE_SIGNING_KEY, cfg.ERASURE_RETIRED_PUBLIC_KEYS),
    },
    ApplicantsRepository,
    ApplicantsService,
    DsarRepository,
    DsarJob,
    DsarService,
    ApplicantsRpcController,
  ],
})
export class ApplicantsModule {}
