/** Sends a streamed export (CSV, JSON Lines) as a file download that is never cached. */
import type { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';

/** Streams `body` as the attachment `filename` of `type`; resolves once its last line went out. */
export async function sendAttachment(
  reply: FastifyReply,
  o: { type: string; filename: string; body: Readable },
): Promise<undefined> {
  reply
    .type(o.type)
    .header('content-disposition', `attachment; filename="${o.filename}"`)
    .header('cache-control', 'no-store');
  await reply.send(o.body);
  return undefined;
}
