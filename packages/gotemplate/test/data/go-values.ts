/** The data values of Go's exec_test.go (tVal and friends) in @keelson/gotemplate's value model. */
import {
  GoFuncError,
  GoNil,
  GoStruct,
  GoUint,
  sprint,
  sprintln,
  type FuncMap,
  type FuncSpec,
} from '../../src/index.js';

const u = (v: string): GoStruct =>
  new GoStruct('template.U', new Map([['V', v]]), new Map([['TrueFalse', (b: unknown) => (b ? 'true' : '')]]), true);

function makeT(fields: Record<string, unknown>): GoStruct {
  const methods = new Map<string, (...a: unknown[]) => unknown>([
    ['Method0', () => 'M0'],
    ['Method1', (a: unknown) => a],
    ['Method2', (a: unknown, b: unknown) => `Method2: ${sprint([a])} ${String(b)}`],
    ['Method3', (v: unknown) => `Method3: ${sprint([v])}`],
    ['MAdd', (a: unknown, b: unknown) => (b as number[]).map((x) => x + (a as number))],
    [
      'MyError',
      (e: unknown) => {
        if (e) throw new GoFuncError('my error');
        return false;
      },
    ],
    ['GetU', () => fields['U']],
    ['Copy', () => makeT(fields)],
  ]);
  return new GoStruct('template.T', new Map(Object.entries(fields)), methods, true);
}

export const tVal = makeT({
  True: true,
  I: 17,
  U16: new GoUint(16n),
  X: 'x',
  S: 'xyz',
  FloatZero: 0,
  U: u('v'),
  SI: [3, 4, 5],
  SIEmpty: [],
  SB: [true, false],
  MSI: new Map([
    ['one', 1],
    ['two', 2],
    ['three', 3],
  ]),
  MSIone: new Map([['one', 1]]),
  MSIEmpty: new Map(),
  MXI: new Map([['one', 1]]),
  MII: new Map([[1, 1]]),
  MI64S: new Map([
    [2, 'i642'],
    [3, 'i643'],
  ]),
  SMSI: [
    new Map([
      ['one', 1],
      ['two', 2],
    ]),
    new Map([
      ['eleven', 11],
      ['twelve', 12],
    ]),
  ],
  Empty0: undefined,
  Empty1: 3,
  Empty2: 'empty2',
  Empty3: [7, 8],
  Empty4: u('UinEmpty'),
  NonEmptyInterfaceTypedNil: new GoNil('*template.T', 'ptr'),
  PI: 23,
  PS: 'a string',
  PSI: [21, 22, 23],
  NIL: new GoNil('*int', 'ptr'),
  BinaryFunc: (a: unknown, b: unknown) => `[${String(a)}=${String(b)}]`,
});

const one = (
  fn: (...a: unknown[]) => unknown,
  params: FuncSpec['params'],
  variadic?: FuncSpec['variadic'],
): FuncSpec => (variadic ? { fn, params, variadic } : { fn, params });

/** testExecute's FuncMap. */
export const testFuncs: FuncMap = {
  add: one((...a) => (a as number[]).reduce((s, x) => s + x, 0), [], 'int'),
  dddArg: one((a, ...b) => sprintln([a, b]), ['int'], 'string'),
  echo: (a: unknown) => a,
  makemap: one(
    (...a) => new Map(Array.from({ length: a.length / 2 }, (_, i) => [a[2 * i], a[2 * i + 1]])),
    [],
    'string',
  ),
  mapOfThree: () => new Map([['three', 3]]),
  oneArg: one((a) => `oneArg=${String(a)}`, ['string']),
  returnInt: () => 7,
  twoArgs: one((a, b) => `twoArgs=${String(a)}${String(b)}`, ['string', 'string']),
  typeOf: one((a) => (typeof a === 'bigint' ? 'int64' : sprint([a]) && typeNameOf(a)), ['any']),
  valueString: one(() => 'value is ignored', ['string']),
  zeroArgs: () => 'zeroArgs',
  die: one(() => {
    throw new GoFuncError('die');
  }, []),
};

function typeNameOf(a: unknown): string {
  if (typeof a === 'number') return Number.isInteger(a) ? 'int' : 'float64';
  if (a !== null && typeof a === 'object' && a.constructor.name === 'GoFloat') return 'float64';
  return typeof a;
}

export const cmpStruct = new GoStruct(
  'struct { Uthree uint; Ufour uint; NegOne int; Three int; Ptr *int; NilPtr *int; Map map[int]int; V1 int }',
  new Map<string, unknown>([
    ['Uthree', new GoUint(3n)],
    ['Ufour', new GoUint(4n)],
    ['NegOne', -1],
    ['Three', 3],
    ['Ptr', new GoStruct('int', new Map(), new Map(), true)],
    ['NilPtr', new GoNil('*int', 'ptr')],
    ['Map', new Map([[1, 2]])],
    ['V1', 1],
  ]),
  new Map(),
  true,
);

export const values: Record<string, unknown> = {
  tVal,
  sliceNeg: [-1, -2, -3],
  mapTwo: new Map([['two', 22]]),
  causeMap: new Map([['cause', 'neglect']]),
  emptyT: makeT({}),
  five: 5,
  zero: 0,
  nilPtr: new GoStruct('template.D', new Map([['P', new GoNil('*v1.ProxyStatus', 'ptr', new Set(['Name']))]])),
  emptyMapError: {},
};
