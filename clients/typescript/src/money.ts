// Money, exactly. The API writes amounts as JSON numbers ("budget_daily":
// 12.50) and refuses more than two decimals. JSON.parse would turn them into
// floats; this client keeps each amount as the text the server sent, and
// writes the text you give back as a JSON number, so no float is ever in
// between. Convert at the edges with toCents and fromCents.

import { moneyFields, type Money } from "./openapi.js";

export type { Money };

const MONEY = /^(0|[1-9][0-9]*)(\.[0-9]+)?$/;

/**
 * Returns the amount as an integer number of cents: "12.5" → 1250. Throws
 * for anything but a plain non-negative decimal with at most two significant
 * decimals ("12.345" is refused; "12.340" is 1234), or beyond what a
 * JavaScript number holds exactly.
 */
export function toCents(m: string): number {
  const match = MONEY.exec(m);
  if (!match) throw new RangeError(`not an amount of money: ${JSON.stringify(m)}`);
  const whole = match[1] ?? "0";
  const frac = (match[2] ?? ".").slice(1).replace(/0+$/, "");
  if (frac.length > 2) throw new RangeError(`more than two decimal places: ${m}`);
  const cents = Number(whole) * 100 + Number(frac.padEnd(2, "0"));
  if (!Number.isSafeInteger(cents)) throw new RangeError(`too large: ${m}`);
  return cents;
}

/** Returns the amount of cents as Money with two decimals: 1250 → "12.50". */
export function fromCents(cents: number): Money {
  if (!Number.isSafeInteger(cents) || cents < 0) throw new RangeError(`not a whole, non-negative number of cents: ${cents}`);
  const s = String(cents).padStart(3, "0");
  return `${s.slice(0, -2)}.${s.slice(-2)}` as Money;
}

/** Checks a decimal amount and writes it with two decimals: usd("12.5") → "12.50". */
export function usd(m: string): Money {
  return fromCents(toCents(m));
}

/**
 * Parses a JSON response, keeping every money property (see moneyFields) as
 * the exact text of its number: {"bid": 1.10} → {bid: "1.10"}.
 */
export function parseJSON(text: string): unknown {
  return JSON.parse(quoteMoney(text));
}

/**
 * Rewrites JSON text so that the number value of every money property
 * becomes a string holding the same text. Everything else is copied as is.
 */
export function quoteMoney(text: string): string {
  let out = "";
  let i = 0;
  let key = ""; // the last object key read
  let afterColon = false; // the next value is key's
  while (i < text.length) {
    const c = text[i]!;
    if (c === '"') {
      const end = stringEnd(text, i);
      const token = text.slice(i, end);
      out += token;
      i = end;
      let j = i;
      while (j < text.length && " \t\r\n".includes(text[j]!)) j++;
      if (text[j] === ":") key = JSON.parse(token) as string;
      afterColon = false;
      continue;
    }
    if (c === "-" || (c >= "0" && c <= "9")) {
      let end = i + 1;
      while (end < text.length && "0123456789+-.eE".includes(text[end]!)) end++;
      const token = text.slice(i, end);
      out += afterColon && moneyFields.has(key) ? `"${token}"` : token;
      i = end;
      afterColon = false;
      continue;
    }
    if (c === ":") afterColon = true;
    else if (c !== " " && c !== "\t" && c !== "\r" && c !== "\n") afterColon = false;
    out += c;
    i++;
  }
  return out;
}

/** Returns the index just past the JSON string that starts at text[start]. */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length) {
    if (text[i] === "\\") i += 2;
    else if (text[i] === '"') return i + 1;
    else i++;
  }
  throw new SyntaxError("unterminated string in JSON");
}

/**
 * Serializes a request body as JSON, writing the Money (string) value of
 * every money property as a JSON number with the same digits: {bid: "1.10"}
 * → {"bid":1.10}. A money property given as anything but null or a valid
 * amount is refused here, before it is sent.
 */
export function stringifyJSON(value: unknown): string {
  return write(value, "");
}

function write(value: unknown, key: string): string {
  if (moneyFields.has(key) && value !== null && value !== undefined) {
    if (typeof value !== "string") throw new TypeError(`${key} must be Money (a decimal string such as "12.50"), got ${typeof value}`);
    toCents(value); // refuses what is not an exact amount
    return value;
  }
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? "null" : write(v, ""))).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const parts: string[] = [];
    for (const [k, v] of Object.entries(value)) {
      if (v === undefined || typeof v === "function") continue;
      parts.push(`${JSON.stringify(k)}:${write(v, k)}`);
    }
    return `{${parts.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
