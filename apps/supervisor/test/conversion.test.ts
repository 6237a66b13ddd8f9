import { describe, expect, it } from '@jest/globals';
import { libreOfficePresent, planConversion } from '../src/conversion.js';

describe('npm start and the convert stage', () => {
  it('starts CONVERT_CONSUMERS (default 1) convert consumers when LibreOffice is installed, silently', () => {
    expect(planConversion({ present: true, wanted: 1, explicit: false, root: true })).toEqual({ consumers: 1 });
    expect(planConversion({ present: true, wanted: 3, explicit: true, root: true })).toEqual({ consumers: 3 });
  });

  it('without LibreOffice: no convert consumer, one line saying conversion is off and how to install it (never installed)', () => {
    const plan = planConversion({ present: false, wanted: 1, explicit: false, root: false });
    expect(plan.consumers).toBe(0);
    expect(plan.log).toMatchObject({ level: 'info', message: expect.stringContaining('conversion is off') });
    expect(plan.log?.message).toContain('415 converter_unavailable');
    expect(plan.log?.install).toBe('sudo apt-get update && sudo apt-get install -y --no-install-recommends libreoffice-core-nogui libreoffice-writer-nogui libreoffice-calc-nogui libreoffice-impress-nogui');
  });

  it('an explicit CONVERT_CONSUMERS without LibreOffice is cut to 0 with a warning (a consumer would only crash-loop)', () => {
    expect(planConversion({ present: false, wanted: 2, explicit: true, root: true })).toMatchObject({ consumers: 0, log: { level: 'warn', message: expect.stringContaining('CONVERT_CONSUMERS=2 ignored') } });
    expect(planConversion({ present: false, wanted: 0, explicit: true, root: true }).log?.level).toBe('info');
  });

  it('finds soffice on the search path, or checks SOFFICE_PATH alone', () => {
    expect(libreOfficePresent(undefined, () => '/usr/bin/soffice')).toBe(true);
    expect(libreOfficePresent(undefined, () => undefined)).toBe(false);
    expect(libreOfficePresent('/nonexistent/soffice', () => '/usr/bin/soffice')).toBe(false);
  });
});
