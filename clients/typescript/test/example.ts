// The README's example, compiled with the tests so that it stays true (it is not run).
import { createAdcampClient, toCents } from "../src/index.js";

export async function example(): Promise<void> {
  const api = createAdcampClient({ apiKey: process.env.ADCAMP_API_KEY!, apiSecret: process.env.ADCAMP_API_SECRET! });
  const { data, error } = await api.POST("/campaigns", { body: { name: "Spring sale", budget_daily: "25.00", marketplace: "US" } });
  if (error) throw new Error(`${error.error.code}: ${error.error.message}`);
  console.log(data.data.id, data.data.budget_daily, toCents(data.data.budget_daily)); // cmp_... 25.00 2500
}
