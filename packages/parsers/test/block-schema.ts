import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import { packageSchema } from '@readpack/testing';
import type { ParsedDocument } from '../src/index.js';

let validators: { flow: ValidateFunction; furniture: ValidateFunction } | undefined;

/** The schema violations of a parser's blocks, checked against the published reading-package schema. */
export function blockSchemaErrors(doc: ParsedDocument): string[] {
  if (!validators) {
    const ajv = new Ajv2020({ allErrors: true, strict: false }).addSchema(packageSchema(), 'package');
    const get = (ref: string): ValidateFunction => {
      const validate = ajv.getSchema(`package#/$defs/${ref}`);
      if (!validate) throw new Error(`the reading-package schema has no $defs/${ref}`);
      return validate;
    };
    validators = { flow: get('flowBlock'), furniture: get('furnitureBlock') };
  }
  const { flow, furniture } = validators;
  const errors: string[] = [];
  const check = (validate: ValidateFunction, block: unknown, where: string): void => {
    if (!validate(block)) errors.push(`${where}: ${JSON.stringify(validate.errors?.slice(0, 3))}`);
  };
  doc.body.forEach((block, i) => check(flow, block, `body[${i}]`));
  doc.furniture.forEach((block, i) => check(furniture, block, `furniture[${i}]`));
  return errors;
}
