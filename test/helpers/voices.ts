// Real voices beyond the corpus: the recorded prompts of Asterisk's core sounds (Debian packages
// asterisk-core-sounds-LANG-g722, CC-BY-SA-3.0 / CC-BY-3.0: Allison Smith in American English, June
// Wallack in Canadian French, Carlo Flora in Italian, a Russian voice), 16 kHz G.722, fetched once
// from Debian's archive into a cache folder outside the repository (SHA-256 checked) and written as
// 16 kHz mono WAV.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { findFfmpeg } from '../../server/media/ffmpeg.ts';
import { downloadChecked } from './download.ts';

const POOL = 'http://deb.debian.org/debian/pool/main/a/asterisk-core-sounds/';
const CACHE = process.env.MEDIA_INDEX_TEST_DATA_CACHE || path.join(os.homedir(), '.cache', 'media-index', 'test-data');

export const VOICES = {
  en: { voice: 'en_US_f_Allison', sha256: '38c5261820b406dcb0ecb37675720da2b0864850690690352ca52707eb623806' },
  fr: { voice: 'fr_CA_f_June', sha256: '7add61d5e42279ecff1bbdf842a5a946ac3644fac9a0fe44384731aa7270c8e0' },
  it: { voice: 'it_IT_m_Carlo', sha256: '46b4cf7afc508a5fcfc051b7ea233251c0d195dd4ef83cc4b7facb4c6429b016' },
  ru: { voice: 'ru_RU_f_IvrvoiceRU', sha256: '673b4238a6b8269960f055d868c6a11083f7a0d00979167cb01554046b48ed9b' },
} as const;

/** What June Wallack says in two French prompts (the package's own script, asterisk-core-sounds-fr). */
export const FRENCH_PROMPTS: Record<string, string> = {
  'demo-echotest':
    "Vous etes sur le point d'entreprendre un test d'écho. Dans ce mode, tout ce que vous direz vous sera répété dès que reçu. Le but de ce test est pour vous donner un exemple audible de latence entre vous et et la machine qui exécute l'application de test d'écho. Vous pourrez quitter le test en raccrochant ou en appuyant sur dièse.",
  'dir-intro':
    "Bienvenue dans le répertoire d'Asterisk. À l'aide de votre clavier téléphonique, veuillez composer les 3 premières lettres du nom de famille de la personne que vous tentez de joindre. Pour la lettre Q, appuyez sur 7 et pour la lettre Z, appuyer sur 9.",
};

/** The folder of one voice's prompts as 16 kHz mono WAV files, named as the package names them. */
export async function voicePrompts(lang: keyof typeof VOICES): Promise<string> {
  const { voice, sha256 } = VOICES[lang];
  const dir = path.join(CACHE, 'voices', voice);
  if (fs.existsSync(path.join(dir, '.complete'))) return dir;
  const deb = `asterisk-core-sounds-${lang}-g722_1.6.1-1_all.deb`;
  fs.mkdirSync(CACHE, { recursive: true });
  const file = await downloadChecked(POOL + deb, path.join(CACHE, deb), sha256);
  const tmp = fs.mkdtempSync(path.join(CACHE, 'unpack-'));
  try {
    execFileSync('dpkg-deb', ['-x', file, tmp]);
    const from = path.join(tmp, 'usr/share/asterisk/sounds', voice);
    const work = `${dir}.work`;
    fs.rmSync(work, { recursive: true, force: true });
    fs.mkdirSync(work, { recursive: true });
    for (const f of fs.readdirSync(from).filter((x) => x.endsWith('.g722'))) {
      const out = path.join(work, f.replace(/\.g722$/, '.wav'));
      execFileSync(findFfmpeg()!.ffmpeg, [
        '-nostdin',
        '-v',
        'error',
        '-y',
        '-f',
        'g722',
        '-i',
        path.join(from, f),
        '-ac',
        '1',
        '-ar',
        '16000',
        '-c:a',
        'pcm_s16le',
        out,
      ]);
    }
    fs.rmSync(dir, { recursive: true, force: true });
    fs.renameSync(work, dir);
    fs.writeFileSync(path.join(dir, '.complete'), '');
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  return dir;
}
