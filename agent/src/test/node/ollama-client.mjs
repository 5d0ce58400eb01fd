// Drives an Ollama-flavoured simulator with the official `ollama` npm client and prints a JSON summary.
import { Ollama } from 'ollama';

const host = process.argv[2];
const client = new Ollama({ host });
const out = {};
const list = await client.list();
out.tags = list.models.map((m) => m.name);
const ps = await client.ps();
out.ps = ps.models.map((m) => ({ name: m.name, size_vram: m.size_vram, context_length: m.context_length }));
const model = out.tags[0];
const show = await client.show({ model });
out.architecture = show.model_info['general.architecture'];
out.block_count = show.model_info['llama.block_count'];

let text = '';
let parts = 0;
let last = null;
for await (const part of await client.chat({ model, messages: [{ role: 'user', content: 'count' }], stream: true, options: { num_predict: 5, temperature: 0 } })) {
  text += part.message.content;
  parts += 1;
  last = part;
}
out.chat_stream = { text, parts, done: last.done, eval_count: last.eval_count, eval_duration: last.eval_duration, load_duration: last.load_duration, prompt_eval_count: last.prompt_eval_count };

const whole = await client.chat({ model, messages: [{ role: 'user', content: 'count' }], stream: false, options: { num_predict: 3 } });
out.chat = { text: whole.message.content, done: whole.done, eval_count: whole.eval_count };

let gen = '';
for await (const part of await client.generate({ model, prompt: 'count', stream: true, options: { num_predict: 4 } })) {
  gen += part.response;
}
out.generate_stream = gen;

try {
  await client.chat({ model: 'missing:1b', messages: [{ role: 'user', content: 'x' }] });
  out.missing = 'no error';
} catch (e) {
  out.missing = { status: e.status_code, message: e.error ?? e.message };
}
console.log(JSON.stringify(out));
