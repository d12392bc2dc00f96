"""jupyter_kernel_test's whole protocol suite against the installed npcompile kernel."""
import jupyter_kernel_test as jkt

from .kernel_helpers import KERNEL_NAME, KERNEL_VERSION, require_kernelspec


class NpcompileKernelTests(jkt.KernelTests):
    kernel_name = KERNEL_NAME
    language_name = "python"
    file_extension = ".py"

    code_hello_world = "print('hello, world')"
    code_stderr = "import sys; print('to stderr', file=sys.stderr)"

    completion_samples = [
        {"text": "zi", "matches": {"zip"}},
        {"text": "import collections\ncollections.Ordered", "matches": {"OrderedDict"}},
    ]

    complete_code_samples = ["1", "print('hello, world')", "def f(x):\n  return x*2\n\n\n"]
    incomplete_code_samples = ["print('''hello", "def f(x):\n  x*2", "for i in range(3):"]
    invalid_code_samples = ["import = 7q"]

    code_page_something = "print?"

    code_generate_error = "raise ValueError('npcompile test error')"

    code_execute_result = [
        {"code": "1+2+3", "result": "6"},
        {"code": "[n*n for n in range(1, 4)]", "result": "[1, 4, 9]"},
        {"code": "import numpy as np; np.arange(4).sum()", "result": "6"},
    ]

    code_display_data = [
        {"code": "from IPython.display import HTML, display; display(HTML('<b>test</b>'))",
         "mime": "text/html"},
        {"code": "from IPython.display import Math, display; display(Math('\\\\frac{1}{2}'))",
         "mime": "text/latex"},
    ]

    code_history_pattern = "1?2*"
    supported_history_operations = ("tail", "range", "search")

    code_inspect_sample = "zip"

    code_clear_output = "from IPython.display import clear_output; clear_output()"

    @classmethod
    def setUpClass(cls):
        require_kernelspec()
        super().setUpClass()

    def test_kernel_info_names_npcompile(self):
        self.flush_channels()
        msg_id = self.kc.kernel_info()
        reply = self.get_non_kernel_info_reply_or_info(msg_id)
        content = reply["content"]
        self.assertEqual(content["implementation"], "npcompile")
        self.assertEqual(content["implementation_version"], KERNEL_VERSION)
        self.assertEqual(content["language_info"]["name"], "python")
        self.assertTrue(content["language_info"]["version"].startswith("3.11"))
        self.assertTrue(content["debugger"])

    def get_non_kernel_info_reply_or_info(self, msg_id):
        while True:
            reply = self.kc.get_shell_msg(timeout=jkt.TIMEOUT)
            if reply["parent_header"]["msg_id"] == msg_id:
                return reply

    def test_error_has_bare_ename(self):
        self.flush_channels()
        reply, output_msgs = self.execute_helper("1/0", stop_on_error=False)
        self.assertEqual(reply["content"]["status"], "error")
        self.assertEqual(reply["content"]["ename"], "ZeroDivisionError")
        errors = [m for m in output_msgs if m["msg_type"] == "error"]
        self.assertEqual(len(errors), 1)
        self.assertEqual(errors[0]["content"]["ename"], "ZeroDivisionError")
        self.assertEqual(errors[0]["content"]["evalue"], "division by zero")
