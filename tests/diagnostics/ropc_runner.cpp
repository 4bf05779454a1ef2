#include "ropc_runner.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace rop::test {

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

RopcResult run_ropc(const std::vector<std::string>& args, const std::string& working_dir) {
    char out_path[] = "/tmp/ropc_out_XXXXXX";
    char err_path[] = "/tmp/ropc_err_XXXXXX";
    const int out_fd = mkstemp(out_path);
    const int err_fd = mkstemp(err_path);
    if (out_fd < 0 || err_fd < 0) throw std::runtime_error("mkstemp failed");
    const pid_t child = fork();
    if (child < 0) throw std::runtime_error("fork failed");
    if (child == 0) {
        dup2(out_fd, STDOUT_FILENO);
        dup2(err_fd, STDERR_FILENO);
        if (chdir(working_dir.c_str()) != 0) _exit(127);
        std::vector<char*> argv;
        std::string program = ROP_ROPC;
        argv.push_back(program.data());
        std::vector<std::string> copies = args;
        for (std::string& arg : copies) argv.push_back(arg.data());
        argv.push_back(nullptr);
        execv(program.c_str(), argv.data());
        _exit(127);
    }
    int status = 0;
    waitpid(child, &status, 0);
    close(out_fd);
    close(err_fd);
    RopcResult result;
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    result.out = read_file(out_path);
    result.err = read_file(err_path);
    unlink(out_path);
    unlink(err_path);
    return result;
}

}  // namespace rop::test
