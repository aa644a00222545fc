import { MEAL_SHARES } from '@nutrition/domain';
import type { PlanningContext, Slot } from './provider.ts';

export type ContentPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string | ContentPart[];
}

const SYSTEM =
  'You are a nutritionist and home cook planning meals for one person. Answer with JSON only, matching the given ' +
  'schema exactly. Quantities are for the whole recipe; per-serving nutrition is for one serving. Use metric units ' +
  'from the allowed unit codes.';

/** The part every planning prompt shares: the person, their targets, preferences and pantry (expiring first). */
export function describeUser(ctx: PlanningContext): string {
  const lines = [
    `Write the whole answer in ${ctx.language.english_name}: every title, reason, ingredient name and step, with no ` +
      'sentence or phrase in another language (names from the pantry below are already in it).',
  ];
  if (ctx.calorieTarget !== null) lines.push(`Daily calorie target: ${ctx.calorieTarget} kcal.`);
  if (ctx.macroTargets) {
    const m = ctx.macroTargets;
    lines.push(`Daily macro targets: protein ${m.protein_g} g, fat ${m.fat_g} g, carbohydrates ${m.carbs_g} g.`);
  }
  if (ctx.cuisines.length) lines.push(`Preferred cuisines: ${ctx.cuisines.join(', ')}.`);
  if (ctx.excludedTags.length) lines.push(`Never suggest dishes tagged: ${ctx.excludedTags.join(', ')}.`);
  if (ctx.pantry.length) {
    lines.push('Pantry (use what expires soonest first):');
    for (const p of ctx.pantry.slice(0, 40)) {
      const when = p.days_left < 0 ? 'expired' : p.days_left === 0 ? 'expires today' : `expires in ${p.days_left} days`;
      lines.push(`- ${p.name}: ${p.quantity} ${p.unit}, ${when}`);
    }
  } else {
    lines.push('The pantry is empty.');
  }
  return lines.join('\n');
}

export function recommendationPrompt(ctx: PlanningContext & { count: number; mealType: string | null }): ChatMessage[] {
  const meal = ctx.mealType ? ` for ${ctx.mealType.replace('_', ' ')}` : '';
  return [
    { role: 'system', content: SYSTEM },
    {
      role: 'user',
      content:
        `${describeUser(ctx)}\n\nSuggest ${ctx.count} different recipes${meal} that fit these targets and use the ` +
        'expiring pantry items where sensible. In `uses_pantry` list the pantry item names each recipe uses.',
    },
  ];
}

const SHARES = Object.entries(MEAL_SHARES)
  .map(([type, share]) => `${type.replace('_', ' ')} ${share * 100} %`)
  .join(', ');

export function menuPrompt(ctx: PlanningContext & { slots: Slot[] }): ChatMessage[] {
  const byDate = new Map<string, string[]>();
  for (const s of ctx.slots) byDate.set(s.date, [...(byDate.get(s.date) ?? []), s.meal_type]);
  const slots = [...byDate].map(([date, meals]) => `- ${date}: ${meals.join(', ')}`).join('\n');
  return [
    { role: 'system', content: SYSTEM },
    {
      role: 'user',
      content:
        `${describeUser(ctx)}\n\nPlan these meals, one recipe per slot, varied across the days, each day close to ` +
        `the calorie target:\n${slots}\nOne serving of each meal should carry about its meal type's share of the ` +
        `daily target (${SHARES}); servings are later scaled only within 0.5-2. ` +
        'Answer with one entry in `days` per date and one meal per meal type.',
    },
  ];
}

export function macroPrompt(input: { name: string; language: string }): ChatMessage[] {
  return [
    { role: 'system', content: SYSTEM },
    {
      role: 'user',
      content:
        'Estimate calories, protein, fat and carbohydrates of one typical serving of the dish named ' +
        `"${input.name}" (language code ${input.language}).`,
    },
  ];
}

/** A vision request: the task in words, then every photo as a data URL. */
export function visionPrompt(task: string, images: { contentType: string; data: Buffer }[]): ChatMessage[] {
  return [
    { role: 'system', content: SYSTEM },
    {
      role: 'user',
      content: [
        { type: 'text', text: task },
        ...images.map((img) => ({
          type: 'image_url' as const,
          image_url: { url: `data:${img.contentType};base64,${img.data.toString('base64')}` },
        })),
      ],
    },
  ];
}

export const DISH_VISION_TASK =
  'Identify every dish on this photo. For each give its usual English name, the visible portion weight in grams, ' +
  'how many standard servings that is, and your confidence from 0 to 1. An empty list if there is no food.';

export const PRODUCT_VISION_TASK = {
  receipt:
    'Read this shop receipt. List the food products bought with their quantity and unit (use g, kg, ml, l or piece) ' +
    'and the line price; skip non-food lines, totals and discounts.',
  products:
    'List the food products visible on this photo with an estimated quantity and unit (g, kg, ml, l or piece); ' +
    'price is null.',
} as const;
