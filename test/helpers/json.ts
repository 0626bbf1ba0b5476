/**
 * A JSON answer, or a record inside one, as a test reads it. Tests read answers loosely on purpose: the
 * assertion that follows is the check, and a wrong guess about a shape fails it. Everything else in the
 * project is typed (`no-explicit-any`); this alias is the tests' one exception.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the tests' loose reading of JSON answers (see above)
export type Json = any;
