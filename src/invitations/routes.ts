// Invitations (API extension, docs/delivery.md "Invitations").
import { userOf } from '../http/context.js';
import { fields, flag, text } from '../http/input.js';
import { route, type RouteSpec } from '../http/router.js';
import type { InvitationsService } from './service.js';

export function invitationRoutes(invitations: InvitationsService, galleryOf: (user: { id: number }, uuid: string) => Promise<unknown>): RouteSpec[] {
  return [
    route({
      method: 'POST',
      path: '/galleries/:uuid/invitations.xml',
      input: fields({
        email: text('invitation[email]'),
        message: text('invitation[message]'),
        comp: flag('invitation[comp_download]'),
        hires: flag('invitation[hires_download]'),
      }),
      found: (ctx) => galleryOf(userOf(ctx), ctx.path.uuid),
      handler: async (ctx, input) => {
        const r = await invitations.invite(userOf(ctx), ctx.path.uuid, input);
        return {
          invitation: {
            email: r.email,
            'gallery-uuid': r.galleryUuid,
            'entry-created': r.entryCreated,
            'expires-at': r.expiresAt,
          },
          message: `Invitation sent to ${r.email}.`,
        };
      },
    }),
  ];
}
