// A server-sent event reader over fetch (EventSource cannot send an Authorization header):
// it splits the text into events as the protocol does (blank-line separated; "event:" and
// "data:" fields, data lines joined by newlines; ":" comments ignored) and hands each to
// `onEvent`. The caller reconnects when the body ends.

export interface ServerEvent { event: string; data: string }

/** Feeds text as it arrives; calls `onEvent` for each complete event. */
export function eventParser(onEvent: (e: ServerEvent) => void): (chunk: string) => void {
  let buf = '';
  let afterCR = false;
  return (chunk) => {
    // line ends may be CRLF, CR or LF: a CR ends its line at once, and an LF right after it
    // (even in the next chunk) belongs to the same line end
    if (afterCR && chunk.startsWith('\n')) chunk = chunk.slice(1);
    afterCR = chunk.endsWith('\r');
    buf += chunk.replace(/\r\n?/g, '\n');
    const end = buf.lastIndexOf('\n\n');
    if (end < 0) return;
    const text = buf.slice(0, end);
    buf = buf.slice(end + 2);
    for (const block of text.split('\n\n')) {
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line === '' || line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'event') event = value;
        else if (field === 'data') data.push(value);
      }
      if (data.length) onEvent({ event, data: data.join('\n') });
    }
  };
}
