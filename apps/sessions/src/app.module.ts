import { Module } from '@nestjs/common';
import { SessionExistsRpc } from './billing/session-exists.rpc.js';
import { EmailLogRepository } from './emails/email-log.repository.js';
import { Mailer } from './emails/mailer.js';
import { Outbox } from './events/outbox.js';
import { CaptureService } from './capture/capture.service.js';
import { CaptureExpiryJob } from './runs/capture-expiry.job.js';
import { InviteEmailJob } from './runs/invite-email.job.js';
import { LiveRunJob } from './runs/live-run.job.js';
import { SessionJobs } from './runs/session-jobs.js';
import { TestRunJob } from './runs/test-run.job.js';
import { LiveRun } from './runs/live-run.js';
import { WatchlistMonitorJob } from './runs/watchlist-monitor.job.js';
import { SessionsRpcController } from './sessions.rpc.controller.js';
import { SessionsRepository } from './sessions/sessions.repository.js';
import { SessionsService } from './sessions/sessions.service.js';
import { TemplatePins } from './sessions/template-pins.js';
import { SessionsMetricsSamplers } from './events/metrics-samplers.js';
import { PrivacyRepository } from './privacy/privacy.repository.js';
import { PrivacyService } from './privacy/privacy.service.js';
import { UsageRepository } from './usage/usage.repository.js';
import { UsageService } from './usage/usage.service.js';

@Module({
  providers: [
    SessionsRepository,
    EmailLogRepository,
    Mailer,
    Outbox,
    SessionsMetricsSamplers,
    SessionJobs,
    TestRunJob,
    LiveRunJob,
    InviteEmailJob,
    CaptureExpiryJob,
    LiveRun,
    WatchlistMonitorJob,
    CaptureService,
    TemplatePins,
    SessionsService,
    PrivacyRepository,
    PrivacyService,
    UsageRepository,
    UsageService,
    SessionsRpcController,
    SessionExistsRpc,
  ],
})
export class SessionsModule {}
