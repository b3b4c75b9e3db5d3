import { Module } from '@nestjs/common';
import { ApplicantsRpcController } from './applicants.rpc.controller.js';
import { ApplicantsRepository } from './applicants/applicants.repository.js';
import { ApplicantsService } from './applicants/applicants.service.js';

@Module({ providers: [ApplicantsRepository, ApplicantsService, ApplicantsRpcController] })
export class ApplicantsModule {}
