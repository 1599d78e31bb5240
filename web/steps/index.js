// The ordered registry of step modules: each web/steps/<id>.js exports { id, params, mount }.
import { ORDER } from './order.js';

const modules = import.meta.glob(['./*.js', '!./index.js', '!./order.js'], { eager: true });
const byId = new Map(Object.values(modules).filter((m) => m.id && m.mount).map((m) => [m.id, m]));

export const steps = ORDER.filter((id) => byId.has(id)).map((id) => byId.get(id));
