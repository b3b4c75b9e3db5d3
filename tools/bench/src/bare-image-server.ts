// The baseline of the image endpoint: a bare Fastify process sending one artifact's bytes straight from Postgres.
import Fastify from 'fastify';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL!, max: Number(process.env.PG_POOL_MAX ?? 10) });
const app = Fastify();
app.get<{ Params: { key: string } }>('/images/:key', async (req, reply) => {
  // base64 rather than bytea's hex text form: cheaper for the client to parse, as in the evidence store
  const r = await pool.query<{ b: string }>(`SELECT encode(bytes, 'base64') AS b FROM evidence.blobs WHERE id = $1`, [req.params.key]);
  if (!r.rows[0]) return reply.code(404).send({ error: 'not found' });
  return reply.type('image/jpeg').header('cache-control', 'no-store, private').send(Buffer.from(r.rows[0].b, 'base64'));
});
await app.listen({ port: Number(process.env.PORT!), host: '127.0.0.1' });
process.stdout.write('ready\n');
