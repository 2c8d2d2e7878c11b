// The studio's forms go through the API's readers and services: their refusals are the API's 422s,
// turned into a form's message by one function (src/studio/context.ts fieldError), for every screen.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/core/errors.js';
import { fieldError, readable } from '../../src/studio/context.js';

describe("the studio's field errors", () => {
  it('names the field the message names, as the form calls it, and words the message for people', () => {
    const err = new ApiError('invalid_parameter', 'gallery[content_order_direction] must be asc or desc');
    expect(fieldError(err, 'gallery')).toEqual({ field: 'content_order_direction', message: 'content order direction must be asc or desc' });
    expect(fieldError(new ApiError('invalid_parameter', 'gallery[cover_media]: no such media'), 'gallery', { cover_media: 'cover' })).toEqual({ field: 'cover', message: 'cover media: no such media' });
    expect(fieldError(new ApiError('invalid_parameter', 'page[title] is required'), 'page', { title: 'page_title' })).toEqual({ field: 'page_title', message: 'title is required' });
    expect(fieldError(new ApiError('invalid_parameter', 'website[accent_color] must be #rrggbb'), 'website').field).toBe('accent_color');
    // A message naming no field: no field, the text as it is.
    expect(fieldError(new ApiError('invalid_parameter', 'a gallery cannot be moved into itself'), 'gallery')).toEqual({ field: '', message: 'a gallery cannot be moved into itself' });
  });

  it("words an access-list entry, and leaves another resource's brackets alone", () => {
    expect(readable('gallery[acl][2][email] is not an e-mail address', 'gallery')).toBe('entry 2 (email) is not an e-mail address');
    expect(readable('website[title] and gallery[name]', 'website')).toBe('title and gallery[name]');
  });

  it('throws on anything but a 422, for the error page', () => {
    const missing = new ApiError('not_found', 'no such gallery');
    expect(() => fieldError(missing, 'gallery')).toThrow(missing);
    const failure = new Error('database down');
    expect(() => fieldError(failure, 'gallery')).toThrow(failure);
  });
});
