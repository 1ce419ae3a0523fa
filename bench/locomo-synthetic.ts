/**
 * LoCoMo's `locomo10.json` format (https://github.com/snap-research/locomo), and a small
 * synthetic dataset in it: conversations of chit-chat with planted facts, each asked about once,
 * its evidence the turn that states it. Some questions share words with their evidence, some
 * only word stems ("hike" / "hiking"), some only meaning ("dog" / "puppy"). It exercises the
 * retrieval-quality bench where the real dataset is not available; it is no measure of quality.
 */
import { seededRandom } from './support.js';

/** One turn of a session. */
export interface LocomoTurn {
  readonly speaker: string;
  readonly dia_id: string;
  readonly text: string;
  readonly blip_caption?: string;
}

/** One question, its answer and the turns that answer it. */
export interface LocomoQa {
  readonly question: string;
  readonly answer?: string | number;
  readonly evidence: readonly string[];
  readonly category?: number;
}

/** One conversation: `session_<n>` turn lists (and `session_<n>_date_time` strings) and questions. */
export interface LocomoSample {
  readonly sample_id?: string | number;
  readonly conversation: Record<string, string | readonly LocomoTurn[]>;
  readonly qa: readonly LocomoQa[];
}

const CHATTER = [
  'How has your week been going so far?',
  'Pretty busy, but nothing I cannot handle.',
  'That sounds good, glad to hear it.',
  'I have been meaning to call you about the weekend.',
  'The weather was lovely yesterday afternoon.',
  'Did you watch the game on Sunday?',
  'Work has been hectic with all the deadlines.',
  'Let us catch up properly soon over coffee.',
  'I read an interesting article about city gardens.',
  'My cousin is visiting at the end of the month.',
];

/** A planted fact: what is said, what is asked, and the answer. */
const FACTS: readonly (readonly [string, string, string])[] = [
  ['I adopted a puppy and named her Biscuit.', 'What is the name of {x} dog?', 'Biscuit'],
  ['I went hiking in the Alps with my brother.', 'Where did {x} hike?', 'the Alps'],
  [
    'I started painting watercolor landscapes.',
    'What kind of paintings does {x} make?',
    'watercolor landscapes',
  ],
  ['My new job is at a bakery downtown.', 'Where does {x} work?', 'a bakery'],
  ['I am learning to play the cello.', 'Which instrument is {x} learning?', 'the cello'],
  ['We booked flights to Lisbon for June.', 'Where is {x} flying in June?', 'Lisbon'],
  ['I ran my first marathon in four hours.', 'How long did the marathon take {x}?', 'four hours'],
  ['My daughter Sophie turned seven today.', 'How old is {x} kid?', 'seven'],
  [
    'I planted tomatoes and basil on the balcony.',
    'What did {x} grow on the balcony?',
    'tomatoes and basil',
  ],
  ['I volunteer at the animal shelter on Saturdays.', 'When does {x} volunteer?', 'Saturdays'],
];

/** `conversations` synthetic samples of `sessions` sessions of `turns` turns each. */
export function syntheticLocomo(conversations = 5, sessions = 4, turns = 16): LocomoSample[] {
  const next = seededRandom(2024);
  const names = [
    'Caroline',
    'Melanie',
    'Jon',
    'Gina',
    'Ravi',
    'Tess',
    'Omar',
    'Lena',
    'Yuki',
    'Bo',
  ];
  return Array.from({ length: conversations }, (_, c) => {
    const a = names[(2 * c) % names.length]!;
    const b = names[(2 * c + 1) % names.length]!;
    const conversation: Record<string, string | LocomoTurn[]> = { speaker_a: a, speaker_b: b };
    const qa: LocomoQa[] = [];
    let fact = c;
    for (let s = 1; s <= sessions; s++) {
      conversation[`session_${s}_date_time`] = `10:00 am on ${s} May, 2024`;
      const list: LocomoTurn[] = [];
      for (let t = 1; t <= turns; t++) {
        const speaker = t % 2 ? a : b;
        const dia_id = `D${s}:${t}`;
        const planted = t % 5 === 3;
        const [said, asked, answer] = FACTS[fact % FACTS.length]!;
        const text = planted ? said : CHATTER[Math.floor(next() * CHATTER.length)]!;
        list.push({ speaker, dia_id, text });
        if (planted) {
          qa.push({
            question: asked.replace('{x}', `${speaker}'s`),
            answer,
            evidence: [dia_id],
            category: 1,
          });
          fact++;
        }
      }
      conversation[`session_${s}`] = list;
    }
    return { sample_id: `synthetic-${c}`, conversation, qa };
  });
}
