/**
 * How an upstream body is returned (docs/reference/http.md#rest-passthrough): parsed JSON for application/json and *+json when it
 * parses; a string for text types (and JSON that does not parse, or no content type) when it is
 * valid UTF-8; otherwise base64 with body_encoding.
 */

const TEXT_APPLICATION = new Set([
  'application/xml',
  'application/javascript',
  'application/x-javascript',
  'application/ecmascript',
  'application/x-www-form-urlencoded',
]);

export function mediaType(contentType: string | null): string {
  if (!contentType) return '';
  return contentType.split(';', 1)[0]!.trim().toLowerCase();
}

export function isJsonType(mt: string): boolean {
  return mt === 'application/json' || mt.endsWith('+json');
}

export function isTextType(mt: string): boolean {
  return (
    mt === '' ||
    mt.startsWith('text/') ||
    isJsonType(mt) ||
    TEXT_APPLICATION.has(mt) ||
    mt.endsWith('+xml') ||
    mt.endsWith('/xml')
  );
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function asUtf8(body: Buffer): string | null {
  try {
    return utf8.decode(body);
  } catch {
    return null;
  }
}

export function formatBody(body: Buffer, contentType: string | null): { body: unknown; encoding?: 'base64' } {
  const mt = mediaType(contentType);
  if (isTextType(mt)) {
    const text = asUtf8(body);
    if (text !== null) {
      if (isJsonType(mt) && text.trim() !== '') {
        try {
          return { body: JSON.parse(text) };
        } catch {
          // Falls through: JSON that does not parse is returned as text.
        }
      }
      return { body: text };
    }
  }
  return { body: body.toString('base64'), encoding: 'base64' };
}
