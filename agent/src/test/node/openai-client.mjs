// Drives an OpenAI-flavoured simulator with the official `openai` npm client and prints a JSON summary.
import OpenAI from 'openai';

const baseURL = process.argv[2];
const client = new OpenAI({ baseURL, apiKey: 'unused', maxRetries: 0, timeout: 20000 });
const out = {};
const models = [];
for await (const m of client.models.list()) {
  models.push(m.id);
}
out.models = models;
const model = models[0];

const stream = await client.chat.completions.create({
  model, messages: [{ role: 'user', content: 'count' }], stream: true, stream_options: { include_usage: true }, max_tokens: 6, temperature: 0,
});
let text = '';
let chunks = 0;
let usage = null;
let finish = null;
for await (const chunk of stream) {
  chunks += 1;
  if (chunk.choices.length > 0) {
    text += chunk.choices[0].delta.content ?? '';
    finish = chunk.choices[0].finish_reason ?? finish;
  }
  if (chunk.usage) {
    usage = chunk.usage;
  }
}
out.stream = { text, chunks, finish, usage };

const whole = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'count' }], max_tokens: 3 });
out.chat = { text: whole.choices[0].message.content, finish: whole.choices[0].finish_reason, usage: whole.usage };

try {
  await client.chat.completions.create({ model: 'missing', messages: [{ role: 'user', content: 'x' }] });
  out.missing = 'no error';
} catch (e) {
  out.missing = { status: e.status, message: e.message };
}
console.log(JSON.stringify(out));
