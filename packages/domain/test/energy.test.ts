import t from 'tap';
import { ageOn, basalMetabolicRate, calorieTarget, energyProfile, macroTargets } from '../src/energy.ts';

t.test('age counts whole years, the birthday on its day', async (t) => {
  t.equal(ageOn('1996-11-23', '2026-11-22'), 29);
  t.equal(ageOn('1996-11-23', '2026-11-23'), 30);
  t.equal(ageOn('2000-02-29', '2026-02-28'), 25);
  t.equal(ageOn('2000-02-29', '2026-03-01'), 26);
});

t.test('Mifflin-St Jeor by hand', async (t) => {
  // 10·80 + 6.25·180 − 5·30 + 5 = 800 + 1125 − 150 + 5
  t.equal(basalMetabolicRate('male', 80, 180, 30), 1780);
  // 10·60 + 6.25·165 − 5·25 − 161 = 600 + 1031.25 − 125 − 161
  t.equal(basalMetabolicRate('female', 60, 165, 25), 1345.25);
  t.equal(basalMetabolicRate(null, 60, 165, 25), null);
});

t.test('calorie target applies activity factor and goal delta, with a floor', async (t) => {
  t.equal(calorieTarget(1780, 'moderate', 'maintain'), 2759); // 1780 × 1.55
  t.equal(calorieTarget(1780, 'moderate', 'lose'), 2259);
  t.equal(calorieTarget(1780, 'very_active', 'gain'), 3682); // 1780 × 1.9 + 300
  t.equal(calorieTarget(1345.25, 'sedentary', 'lose'), 1200); // 1614.3 − 500 = 1114 → floor
  t.equal(calorieTarget(1780, null, 'lose'), null);
});

t.test('macro targets split energy 25/30/45 %', async (t) => {
  // 2259 × .25 / 4 = 141.2; × .30 / 9 = 75.3; × .45 / 4 = 254.1
  t.same(macroTargets(2259), { protein_g: 141, fat_g: 75, carbs_g: 254 });
  t.equal(macroTargets(null), null);
});

t.test('the whole profile from inputs', async (t) => {
  const inputs = {
    sex: 'male' as const,
    weightKg: 80,
    heightCm: 180,
    dateOfBirth: '1996-01-15',
    activityLevel: 'moderate' as const,
    goal: 'lose' as const,
  };
  t.same(energyProfile(inputs, '2026-11-22'), {
    age: 30,
    bmr: 1780,
    calorie_target: 2259,
    macro_targets: { protein_g: 141, fat_g: 75, carbs_g: 254 },
  });
  t.same(energyProfile({ ...inputs, goal: null }, '2026-11-22').calorie_target, null);
});
