// Helpers shared by the tests: the repository's files, and a live server.

import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

/** The repository's root: the first directory up from here with openapi.yaml. */
export function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "openapi.yaml"))) {
    const up = dirname(dir);
    if (up === dir) throw new Error("no openapi.yaml above " + fileURLToPath(import.meta.url));
    dir = up;
  }
  return dir;
}

/** A running adcamp serve, with an account, a channel account and a sandbox key. */
export interface Server {
  sandbox: string;
  production: string;
  accountId: string;
  channelAccountId: number;
  apiKey: string;
  apiSecret: string;
  stop(): Promise<void>;
}

/**
 * Starts adcamp serve from $ADCAMP_BIN (CI builds it once) or from a binary
 * built here with go build, on ports the system picks, over a fresh data
 * directory, and sets up an account with the admin commands.
 */
export async function startServer(): Promise<Server> {
  const dir = mkdtempSync(join(tmpdir(), "adcamp-ts-"));
  let bin = process.env.ADCAMP_BIN ?? "";
  if (!bin) {
    bin = join(dir, "adcamp");
    execFileSync("go", ["build", "-C", repoRoot(), "-o", bin, "./cmd/adcamp"], { stdio: "inherit" });
  }
  const child = spawn(bin, ["serve", "--data-dir", join(dir, "data"), "--production-addr", "127.0.0.1:0", "--sandbox-addr", "127.0.0.1:0"], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
  const urls = await new Promise<Record<string, string>>((resolve, reject) => {
    const found: Record<string, string> = {};
    const timer = setTimeout(() => reject(new Error("adcamp serve logged no listening addresses within 60 s")), 60_000);
    createInterface({ input: child.stderr! }).on("line", (line) => {
      try {
        const rec = JSON.parse(line) as { msg?: string; env?: string; url?: string };
        if (rec.msg === "listening" && rec.env && rec.url) found[rec.env] = rec.url;
      } catch {
        return;
      }
      if (found.sandbox && found.production) {
        clearTimeout(timer);
        resolve(found);
      }
    });
    child.on("exit", (code) => reject(new Error(`adcamp serve exited with ${code}`)));
  });
  const admin = (...args: string[]): Record<string, unknown> =>
    JSON.parse(execFileSync(bin, [...args, "--data-dir", join(dir, "data")], { encoding: "utf8" })) as Record<string, unknown>;
  const account = admin("accounts", "create", "--name", "Acme", "--json");
  const ca = admin("channel-accounts", "create", "--account", String(account.id), "--marketplace", "US", "--name", "Acme US", "--json");
  const key = admin("keys", "create", "--account", String(account.id), "--env", "sandbox", "--json");
  return {
    sandbox: urls.sandbox!,
    production: urls.production!,
    accountId: String(account.id),
    channelAccountId: Number(ca.id),
    apiKey: String(key.api_key),
    apiSecret: String(key.api_secret),
    async stop() {
      child.kill("SIGTERM");
      const code = await exited;
      rmSync(dir, { recursive: true, force: true });
      if (code !== 0) throw new Error(`adcamp serve exited with ${code} after SIGTERM`);
    },
  };
}
