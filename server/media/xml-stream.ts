// A part of a zip container (Office, OpenDocument) streamed through saxes, the strict streaming XML
// parser: for the parts that can run to megabytes (a sheet, a document's body), where a parser that
// builds a tree takes ten times as long and holds it all.
import path from 'node:path';
import { SaxesParser } from 'saxes';
import { ExtractError } from './types.ts';
import type { Zip } from './zip.ts';

export interface XmlHandlers {
  /** An element opens; its name and its attributes' without their namespace prefix (`w:p` is `p`). */
  open(tag: string, attributes: Record<string, string>): void;
  close(tag: string): void;
  text(text: string): void;
}

const localName = (name: string) => name.slice(name.indexOf(':') + 1);

/** Attributes by their names without namespace prefix (a later one of the same name wins). */
function unprefixed(given: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  for (const k in given) out[localName(k)] = given[k];
  return out;
}

/**
 * Streams the part `name` of `zip` to `handlers` as it inflates (the part is never held whole);
 * `corrupt` when it is not well-formed XML. `stop`, asked after each inflated piece, ends the
 * reading there (what follows is neither inflated nor checked).
 */
export async function streamXml(zip: Zip, name: string, handlers: XmlHandlers, stop: () => boolean = () => false): Promise<void> {
  const parser = new SaxesParser();
  parser.on('opentag', (tag) => {
    // saxes makes each element's attributes an object of its own (without a prototype): handed on
    // as they are unless a name has a prefix (most have none: `<c r="A1" s="2">`; a copy made for
    // every element was a fifth of a sheet's reading).
    const given = tag.attributes as Record<string, string>;
    let attributes = given;
    for (const k in given) {
      if (k.includes(':')) {
        attributes = unprefixed(given);
        break;
      }
    }
    handlers.open(localName(tag.name), attributes);
  });
  parser.on('closetag', (tag) => handlers.close(localName(tag.name)));
  parser.on('text', handlers.text);
  parser.on('cdata', handlers.text);
  const decoder = new TextDecoder('utf-8');
  let failed: Error | null = null;
  let stopped = false;
  await zip.stream(name, (chunk) => {
    try {
      parser.write(decoder.decode(chunk, { stream: true }));
    } catch (err) {
      failed = err as Error;
      return false;
    }
    stopped = stop();
    return !stopped;
  });
  try {
    if (!failed && !stopped) parser.write(decoder.decode()).close();
  } catch (err) {
    failed = err as Error;
  }
  if (failed) throw new ExtractError('corrupt', `${name}: ${(failed as Error).message}`);
}

export interface Relationship {
  /** The target's path in the archive. */
  target: string;
  type: string;
}

/** The relationships of the part `part` ('' for the package's own): id → target, external targets left out. */
export async function relationships(zip: Zip, part: string): Promise<Map<string, Relationship>> {
  const rels = path.posix.join(path.posix.dirname(part), '_rels', `${path.posix.basename(part)}.rels`);
  const out = new Map<string, Relationship>();
  if (!zip.has(rels)) return out;
  await streamXml(zip, rels, {
    open(tag, a) {
      if (tag !== 'Relationship' || !a.Id || !a.Target || a.TargetMode === 'External') return;
      const target = a.Target.startsWith('/') ? a.Target.slice(1) : path.posix.normalize(path.posix.join(path.posix.dirname(part), a.Target));
      out.set(a.Id, { target, type: a.Type ?? '' });
    },
    close() {},
    text() {},
  });
  return out;
}

/** The target of the first relationship whose type ends with `suffix` (`/officeDocument`, `/styles`…). */
export function targetOf(rels: Map<string, Relationship>, suffix: string): string | undefined {
  for (const r of rels.values()) if (r.type.endsWith(suffix)) return r.target;
  return undefined;
}
