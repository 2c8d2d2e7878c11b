// The studio's forms read the services' field specs (src/studio/spec-form.ts): a refusal is shown
// at the field `err.field` names, under the form's name for it, and worded for people; the
// message's text is never parsed to find the field.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/core/errors.js';
import { GALLERY_API, GALLERY_FIELDS, readGallery } from '../../src/galleries/fields.js';
import { Body } from '../../src/studio/body.js';
import { specForm } from '../../src/studio/spec-form.js';

const form = specForm(GALLERY_FIELDS, GALLERY_API, { coverMedia: 'cover' });
/** What reading `pairs` as the settings form was refused with, as the form shows it. */
const refused = (pairs: Record<string, string>, keys: string[]) => {
  try {
    readGallery(form.source(Body.json(pairs), keys, { blank: true }), 'update', form.words);
  } catch (err) {
    return form.refusal(err);
  }
  throw new Error('accepted');
};

describe("the studio's field errors", () => {
  it('names the field by err.field, as the form calls it, with the words of the spec for people', () => {
    expect(refused({ content_order_direction: 'up' }, ['contentOrderDirection'])).toEqual({ field: 'content_order_direction', message: 'content order direction must be one of asc, desc, got "up"' });
    expect(refused({ cover: 'not-a-uuid' }, ['coverMedia'])).toEqual({ field: 'cover', message: 'cover media must be a UUID, got "not-a-uuid"' });
    expect(refused({ name: ' ' }, ['name']).field).toBe('name');
  });

  it("rewords a service's refusal, worded with the API's name, at its field", () => {
    const err = new ApiError('invalid_parameter', "gallery[cover_media]: 6a3e… is not a media of this website's owner", { field: 'coverMedia' });
    expect(form.refusal(err)).toEqual({ field: 'cover', message: "cover media: 6a3e… is not a media of this website's owner" });
    // A refusal naming no field: above the form, the text as it is.
    expect(form.refusal(new ApiError('invalid_parameter', 'a gallery cannot be moved into itself'))).toEqual({ field: '', message: 'a gallery cannot be moved into itself' });
  });

  it('reads only the fields the form holds: any other name in the body is not sent', () => {
    const input = readGallery(form.source(Body.json({ name: 'Trip', url_path: 'elsewhere', position: '3' }), ['name']), 'update', form.words);
    expect(input).toEqual({ name: 'Trip' });
  });

  it('throws on anything but a 422, for the error page', () => {
    const missing = new ApiError('not_found', 'no such gallery');
    expect(() => form.refusal(missing)).toThrow(missing);
    const failure = new Error('database down');
    expect(() => form.refusal(failure)).toThrow(failure);
  });
});
