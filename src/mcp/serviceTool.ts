// A tool over one service (the queue, workflows, review): its name, annotations and input and output
// schemas on the first line, then its description and what it does with the service. The title is
// the name in words unless given; the service is opened on the tool's first call.

import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import type { ToolAnnotations, ToolContext, ToolDefinition } from './toolRegistry';

export interface ServiceToolSpec<S> {
  /** Default: the name in words ('get_task' → 'Get task'). */
  title?: string;
  description: string;
  /** See ToolDefinition.shallowOutput. */
  shallowOutput?: boolean;
  /** See ToolDefinition.responseBudget. */
  responseBudget?: number;
  /** See ToolDefinition.more. */
  more?: string;
  /** The call: the arguments as the client sent them (core checks them). */
  run(service: S, args: unknown, ctx: ToolContext): Promise<CallToolResult>;
}

/** What a toolset's index lists: makes the tool from the service it calls. */
export type ToolMaker<S> = (service: () => Promise<S>) => ToolDefinition;

/** 'get_task' → 'Get task'. */
export function toolTitle(name: string): string {
  const words = name.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

export function serviceTool<S>(name: string, annotations: ToolAnnotations, input: z.ZodObject, output: z.ZodObject, spec: ServiceToolSpec<S>): ToolMaker<S> {
  const { title = toolTitle(name), run, ...rest } = spec;
  return (service) => ({ name, title, input, output, annotations, ...rest, handler: async (args, ctx) => run(await service(), args, ctx) });
}

/** The methods of S that take a tool's raw arguments alone. */
type ToolMethod<S> = { [K in keyof S]: S[K] extends (raw: unknown) => Promise<unknown> ? K : never }[keyof S] & string;

export interface MethodToolSpec<Out> extends Omit<ServiceToolSpec<never>, 'run'> {
  /** The method's result in words, and as structured content. */
  answer(out: Out): CallToolResult;
}

/**
 * The tools of a service whose every tool is one of its methods by the same name (the workflow and
 * review protocols: log_decision is WorkflowService.logDecision): `methodTools<WorkflowService>()`
 * gives the helper a tool file is written with, taking the method instead of a run().
 */
export function methodTools<S>() {
  return <K extends ToolMethod<S>>(
    method: K,
    annotations: ToolAnnotations,
    input: z.ZodObject,
    output: z.ZodObject,
    spec: MethodToolSpec<Awaited<ReturnType<Extract<S[K], (raw: unknown) => Promise<unknown>>>>>,
  ): ToolMaker<S> => {
    const { answer, ...rest } = spec;
    const name = method.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    const call = async (service: S, args: unknown) => answer(await (service[method] as (raw: unknown) => Promise<never>).call(service, args));
    return serviceTool<S>(name, annotations, input, output, { ...rest, run: call });
  };
}
