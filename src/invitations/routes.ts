// Invitations (API extension, docs/delivery.md "Invitations").
import { userOf } from '../http/context.js';
import { specInput } from '../http/input.js';
import { route, type RouteSpec } from '../http/router.js';
import { INVITATION_API, INVITATION_FIELDS, type InvitationsService } from './service.js';

export function invitationRoutes(invitations: InvitationsService, galleryOf: (user: { id: number }, uuid: string) => Promise<unknown>): RouteSpec[] {
  return [
    route({
      method: 'POST',
      path: '/galleries/:uuid/invitations.xml',
      input: specInput(INVITATION_FIELDS, INVITATION_API),
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
