// Request signing, both schemes of the API, with Node's crypto.
//
//   Scheme A: timestamp + METHOD + path + body            (no separators)
//   Scheme B: METHOD \n path \n timestamp \n md5hex(body)
//
// The signature is the lower-case hex HMAC-SHA256 of the string to sign,
// keyed with the API secret. The path is the request path as sent (escaped,
// without the query); the body is its exact bytes.

import { createHash, createHmac } from "node:crypto";

export type Scheme = "a" | "b";

/** Returns the string to sign of a request under scheme. */
export function stringToSign(scheme: Scheme, timestamp: string, method: string, path: string, body: Uint8Array): Buffer {
  if (scheme === "b") {
    const md5 = createHash("md5").update(body).digest("hex");
    return Buffer.from(`${method}\n${path}\n${timestamp}\n${md5}`, "utf8");
  }
  return Buffer.concat([Buffer.from(timestamp + method + path, "utf8"), body]);
}

/** Returns the signature of a string to sign: hex HMAC-SHA256 keyed with secret. */
export function sign(secret: string, message: Uint8Array): string {
  return createHmac("sha256", secret).update(message).digest("hex");
}

/** The three authentication headers of a request. */
export interface SignedHeaders {
  "X-API-Key": string;
  "X-Timestamp": string;
  "X-Signature": string;
}

/**
 * Signs requests with one credential. Each change (POST, PUT, DELETE) is
 * signed with a timestamp at which no other change with the same string to
 * sign was signed, one second later if need be: the server answers a
 * repeated signature with the first answer (a replay), and the query and
 * If-Match are not signed, so equal changes sent within a second (a dry run,
 * then the change) would otherwise collide.
 */
export class Signer {
  private readonly used = new Map<string, number>(); // string to sign → its timestamp

  constructor(
    readonly apiKey: string,
    private readonly apiSecret: string,
    readonly scheme: Scheme = "a",
    private readonly now: () => number = () => Date.now(),
  ) {
    if (!apiKey || !apiSecret) throw new TypeError("an API key and its secret are required");
  }

  /** Returns the authentication headers of a request. */
  headers(method: string, path: string, body: Uint8Array): SignedHeaders {
    const m = method.toUpperCase();
    let ts = Math.floor(this.now() / 1000);
    let msg = stringToSign(this.scheme, String(ts), m, path, body);
    if (m === "POST" || m === "PUT" || m === "DELETE") {
      this.forget(ts);
      const seen = (b: Buffer) => createHash("sha256").update(b).digest("base64");
      while (this.used.has(seen(msg))) {
        ts++;
        msg = stringToSign(this.scheme, String(ts), m, path, body);
      }
      this.used.set(seen(msg), ts);
    }
    return { "X-API-Key": this.apiKey, "X-Timestamp": String(ts), "X-Signature": sign(this.apiSecret, msg) };
  }

  private forget(now: number): void {
    for (const [k, ts] of this.used) {
      if (ts < now - 1) this.used.delete(k);
    }
  }
}
