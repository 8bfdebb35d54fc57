// Generated from ffi/include/arbor.h by ffi/tests/csharp.rs: do not edit.
// P/Invoke declarations of Arbor's C ABI for C# (Unity, .NET). Handles are ulong,
// codes int; arbor_last_error() gives a pointer: Marshal.PtrToStringUTF8 reads it.
// Keep each callback delegate alive (a static field) while trees use its kind.

using System;
using System.Runtime.InteropServices;

namespace Arbor
{
    [StructLayout(LayoutKind.Sequential)]
    public struct ArborValue
    {
        public int type;
        [MarshalAs(UnmanagedType.I1)] public bool boolean;
        public double number;
        public long integer;
        public IntPtr text;
        public UIntPtr text_len;
        public ulong entity;
        [MarshalAs(UnmanagedType.ByValArray, SizeConst = 2)] public double[] position;
    }

    [StructLayout(LayoutKind.Sequential)]
    public struct ArborRuns
    {
        public ulong steps;
        public ulong succeeded;
        public ulong failed;
        public ulong skipped;
        public ulong stalls;
        public ulong context_missing;
        public ulong interrupts;
    }

    [StructLayout(LayoutKind.Sequential)]
    public struct ArborNode
    {
        public IntPtr fields;
        public UIntPtr field_count;
        public IntPtr memory;
        public ulong step;
        public IntPtr reserved;
    }

    [StructLayout(LayoutKind.Sequential)]
    public struct ArborAction
    {
        public IntPtr user;
        public ArborExecuteFn execute;
        public ArborEnterFn enter;
        public ArborExitFn exit;
    }

    [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
    public delegate int ArborExecuteFn(IntPtr user, IntPtr agent, IntPtr node, double dt);

    [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
    public delegate void ArborEnterFn(IntPtr user, IntPtr agent, IntPtr node);

    [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
    public delegate void ArborExitFn(IntPtr user, IntPtr agent, IntPtr node, int status);

    [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
    public delegate int ArborCheckFn(IntPtr user, IntPtr agent, IntPtr node);

    public static class Native
    {
        public const string Library = "arbor_ffi";

        public const int ARBOR_ABI_VERSION = 1;
        public const int ARBOR_RUNNING = 1;
        public const int ARBOR_SUCCESS = 2;
        public const int ARBOR_FAILURE = 3;
        public const int ARBOR_ABORTED = 4;
        public const int ARBOR_OK = 0;
        public const int ARBOR_ERR_NULL = 1;
        public const int ARBOR_ERR_HANDLE = 2;
        public const int ARBOR_ERR_HANDLE_TYPE = 3;
        public const int ARBOR_ERR_BUSY = 4;
        public const int ARBOR_ERR_ARGUMENT = 5;
        public const int ARBOR_ERR_LOAD = 6;
        public const int ARBOR_ERR_INVALID = 7;
        public const int ARBOR_ERR_NOT_FOUND = 8;
        public const int ARBOR_ERR_TYPE = 9;
        public const int ARBOR_ERR_CALLBACK = 10;
        public const int ARBOR_ERR_IO = 11;
        public const int ARBOR_ERR_CALL = 12;
        public const int ARBOR_ERR_INTERNAL = 13;
        public const int ARBOR_HELD = 100;
        public const int ARBOR_NONE = 0;
        public const int ARBOR_BOOL = 1;
        public const int ARBOR_NUMBER = 2;
        public const int ARBOR_INT = 3;
        public const int ARBOR_TEXT = 4;
        public const int ARBOR_ENTITY = 5;
        public const int ARBOR_POSITION = 6;

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        public static extern uint arbor_abi_version();

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        public static extern int arbor_agent_new(ulong tree, [MarshalAs(UnmanagedType.LPUTF8Str)] string name, ulong seed, out ulong @out);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        public static extern int arbor_agent_free(ulong agent);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        public static extern int arbor_agent_step(ulong agent, double dt, IntPtr data);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        public static extern int arbor_step_all(ulong[] agents, IntPtr[] data, UIntPtr count, double dt);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        public static extern int arbor_agent_trigger(ulong agent, [MarshalAs(UnmanagedType.LPUTF8Str)] string id, IntPtr payload);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        public static extern int arbor_agent_get(ulong agent, [MarshalAs(UnmanagedType.LPUTF8Str)] string key, out ArborValue @out);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        public static extern int arbor_agent_set(ulong agent, [MarshalAs(UnmanagedType.LPUTF8Str)] string key, ArborValue value);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        public static extern int arbor_agent_seed(ulong agent, [MarshalAs(UnmanagedType.LPUTF8Str)] string key, ArborValue value);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        public static extern int arbor_agent_runs(ulong agent, out ArborRuns @out);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        public static extern int arbor_call_field(IntPtr node, [MarshalAs(UnmanagedType.LPUTF8Str)] string field, out ArborValue @out);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        public static extern int arbor_call_input(IntPtr node, out ArborValue @out);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        public static extern int arbor_call_produce(IntPtr node, ArborValue value);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        public static extern int arbor_call_set_output(IntPtr node, [MarshalAs(UnmanagedType.LPUTF8Str)] string field, ArborValue value);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        public static extern int arbor_call_fail_because(IntPtr node, [MarshalAs(UnmanagedType.LPUTF8Str)] string reason);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        public static extern IntPtr arbor_last_error();

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        public static extern int arbor_link_connect([MarshalAs(UnmanagedType.LPUTF8Str)] string game, double dt, ulong seed, ulong[] agents, UIntPtr count, [MarshalAs(UnmanagedType.LPUTF8Str)] string address, out ulong @out);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        public static extern int arbor_link_connected(ulong link, out int @out);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        public static extern int arbor_link_problem(ulong link, out ArborValue @out);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        public static extern int arbor_link_free(ulong link);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        public static extern int arbor_runtime_new(out ulong @out);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        public static extern int arbor_runtime_free(ulong runtime);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        public static extern int arbor_runtime_load_library(ulong runtime, [MarshalAs(UnmanagedType.LPUTF8Str)] string path);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        public static extern int arbor_runtime_load_library_text(ulong runtime, [MarshalAs(UnmanagedType.LPUTF8Str)] string path, [MarshalAs(UnmanagedType.LPUTF8Str)] string text, UIntPtr len);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        public static extern int arbor_runtime_load_project(ulong runtime, [MarshalAs(UnmanagedType.LPUTF8Str)] string path);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        public static extern int arbor_runtime_register_action(ulong runtime, [MarshalAs(UnmanagedType.LPUTF8Str)] string kind, in ArborAction action);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        public static extern int arbor_runtime_register_condition(ulong runtime, [MarshalAs(UnmanagedType.LPUTF8Str)] string kind, ArborCheckFn check, IntPtr user);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        public static extern int arbor_trace_open([MarshalAs(UnmanagedType.LPUTF8Str)] string path, double dt, ulong seed, ulong[] agents, UIntPtr count, out ulong @out);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        public static extern int arbor_trace_close(ulong trace);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        public static extern int arbor_tree_load(ulong runtime, [MarshalAs(UnmanagedType.LPUTF8Str)] string path, out ulong @out);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        public static extern int arbor_tree_load_text(ulong runtime, [MarshalAs(UnmanagedType.LPUTF8Str)] string path, [MarshalAs(UnmanagedType.LPUTF8Str)] string text, UIntPtr len, out ulong @out);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        public static extern int arbor_tree_free(ulong tree);

    }
}
