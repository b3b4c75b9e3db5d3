// The baseline: a bare Fastify process doing the same Postgres work as the measured paths directly, as a plain
// handler would: one prepared statement per request (the services batch what arrives together).
import Fastify from 'fastify';
import pg from 'pg';
import { newId } from '@verity/keys';

const url = process.env.DATABASE_URL!;
const port = Number(process.env.PORT!);
const pool = new pg.Pool({ connectionString: url, max: Number(process.env.PG_POOL_MAX ?? 5) });
const COLUMNS = `seq, id, mode, family_name, given_names, name_suffix, email, phone,
  to_char(date_of_birth, 'YYYY-MM-DD') AS date_of_birth, address, external_id, created_at`;

const app = Fastify();
app.get<{ Params: { id: string }; Headers: { 'x-org': string } }>('/applicants/:id', async (req, reply) => {
  const r = await pool.query({
    name: 'bare_applicant_get',
    text: `SELECT ${COLUMNS} FROM applicants.applicants WHERE id = $1 AND org_id = $2 AND mode = $3`,
    values: [req.params.id, req.headers['x-org'], 'test'],
  });
  if (!r.rows[0]) return reply.code(404).send({ error: 'not found' });
  return { data: r.rows[0] };
});
app.post<{ Body: { family_name: string; given_names: string[]; email?: string }; Headers: { 'x-org': string } }>(
  '/applicants',
  async (req, reply) => {
    const b = req.body;
    const r = await pool.query({
      name: 'bare_applicant_insert',
      text: `INSERT INTO applicants.applicants (id, org_id, mode, family_name, given_names, email) VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
      values: [newId('applicant'), req.headers['x-org'], 'test', b.family_name, b.given_names, b.email ?? null],
    });
    return reply.code(201).send({ data: r.rows[0] });
  },
);
const SESSION_CHECKS = JSON.stringify(
  ['document', 'face_match', 'liveness', 'watchlist', 'document_signing'].map((type) => ({ type, outcome: null })),
);
app.post<{ Body: { applicant_id: string; workflow_template_id: string; metadata: Record<string, unknown> }; Headers: { 'x-org': string } }>(
  '/sessions',
  async (req, reply) => {
    const b = req.body;
    const r = await pool.query({
      name: 'bare_session_insert',
      text: `INSERT INTO sessions.sessions (id, org_id, mode, applicant_id, workflow_template_id, template_version, status, checks, metadata)
       VALUES ($1, $2, 'live', $3, $4, 1, 'pending', $5, $6) RETURNING id, status, created_at`,
      values: [newId('session'), req.headers['x-org'], b.applicant_id, b.workflow_template_id, SESSION_CHECKS, JSON.stringify(b.metadata)],
    });
    return reply.code(201).send({ data: r.rows[0] });
  },
);
await app.listen({ port, host: '127.0.0.1' });
process.stdout.write('ready\n');
